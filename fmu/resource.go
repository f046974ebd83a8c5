package fmu

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// ModelFileName is the model file's name inside the FMU's resources/ folder.
const ModelFileName = "model.xml"

// ResolveResources turns an fmuResourceLocation into the path of the
// model file. Every form importers send is accepted: "file:///…/resources/"
// (fmusim), "file:///…/resources" percent-encoded (FMPy), "file://localhost/…",
// "file:/…", a plain path, and the FMU root (then resources/ is looked in).
// On Windows also "file:///C:/…" (drive letter) and "file://server/share/…"
// (a UNC path).
func ResolveResources(loc string) (string, error) {
	return resolveResources(loc, runtime.GOOS == "windows")
}

// uriPaths returns the local paths a file: URI may mean (decoded first,
// then as written), with Windows drive letters and UNC hosts when windows.
func uriPaths(loc string, windows bool) ([]string, error) {
	rest := loc[len("file:"):]
	host := ""
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			return nil, fmt.Errorf("fmuResourceLocation %q has no path", loc)
		}
		host, rest = rest[:slash], rest[slash:]
		if strings.EqualFold(host, "localhost") {
			host = ""
		}
		if host != "" && !windows {
			return nil, fmt.Errorf("fmuResourceLocation %q names the remote host %q: only local files are supported", loc, host)
		}
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	forms := []string{rest}
	if p, err := url.PathUnescape(rest); err == nil && p != rest {
		forms = []string{p, rest} // not valid percent-encoding: taken literally
	}
	for i, p := range forms {
		switch {
		case host != "":
			p = `\\` + host + p // \\server\share\…
		case windows && len(p) >= 3 && p[0] == '/' && isDriveLetter(p[1]) && (p[2] == ':' || p[2] == '|'):
			p = p[1:2] + ":" + p[3:] // /C:/x → C:/x
		}
		forms[i] = p
	}
	return forms, nil
}

func isDriveLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func resolveResources(loc string, windows bool) (string, error) {
	if strings.TrimSpace(loc) == "" {
		return "", errors.New("fmuResourceLocation is empty: the importer must pass the URI of the unpacked FMU's resources folder (file:///…/resources)")
	}
	var cands []string
	lower := strings.ToLower(loc)
	switch {
	case strings.HasPrefix(lower, "file:"):
		ps, err := uriPaths(loc, windows)
		if err != nil {
			return "", err
		}
		cands = append(cands, ps...)
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
