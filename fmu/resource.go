package fmu

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ModelFileName is the model file's name inside the FMU's resources/ folder.
const ModelFileName = "model.xml"

// ResolveResources turns an fmuResourceLocation into the path of the
// model file. Every form importers send is accepted: "file:///…/resources/"
// (fmusim), "file:///…/resources" percent-encoded (FMPy), "file://localhost/…",
// "file:/…", a plain path, and the FMU root (then resources/ is looked in).
func ResolveResources(loc string) (string, error) {
	if strings.TrimSpace(loc) == "" {
		return "", errors.New("fmuResourceLocation is empty: the importer must pass the URI of the unpacked FMU's resources folder (file:///…/resources)")
	}
	var cands []string
	lower := strings.ToLower(loc)
	switch {
	case strings.HasPrefix(lower, "file:"):
		rest := loc[len("file:"):]
		if strings.HasPrefix(rest, "//") {
			rest = rest[2:]
			slash := strings.IndexByte(rest, '/')
			if slash < 0 {
				return "", fmt.Errorf("fmuResourceLocation %q has no path", loc)
			}
			if host := rest[:slash]; host != "" && !strings.EqualFold(host, "localhost") {
				return "", fmt.Errorf("fmuResourceLocation %q names the remote host %q: only local files are supported", loc, host)
			}
			rest = rest[slash:]
		}
		if i := strings.IndexAny(rest, "?#"); i >= 0 {
			rest = rest[:i]
		}
		p, err := url.PathUnescape(rest)
		if err != nil {
			// Not valid percent-encoding: take it literally.
			p = rest
		}
		cands = append(cands, p)
		if p != rest {
			cands = append(cands, rest)
		}
	case strings.Contains(loc, "://"):
		return "", fmt.Errorf("fmuResourceLocation %q: unsupported URI scheme (expected file:)", loc)
	default:
		cands = append(cands, loc)
		if p, err := url.PathUnescape(loc); err == nil && p != loc {
			cands = append(cands, p)
		}
	}
	var tried []string
	for _, c := range cands {
		c = filepath.Clean(c)
		fs := []string{filepath.Join(c, ModelFileName), filepath.Join(c, "resources", ModelFileName)}
		if filepath.Base(c) == ModelFileName {
			fs = append(fs, c) // the model file itself
		}
		for _, f := range fs {
			if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
				return f, nil
			}
			tried = append(tried, f)
		}
	}
	return "", fmt.Errorf("fmuResourceLocation %q: no %s found (looked for %s): is this the unpacked FMU's resources folder?", loc, ModelFileName, strings.Join(tried, ", "))
}
