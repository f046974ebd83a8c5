package results

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"

	"github.com/xuri/excelize/v2"
)

// SaveWorkbook saves a workbook built with excelize to path the way the
// XLSXWriter does (scatter charts get numeric x references, the archive
// streams to the file), atomically: it writes a temporary file in the
// same folder and renames it over path only when the whole workbook is
// written, so path never holds a partial workbook.
func SaveWorkbook(f *excelize.File, path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return &chartFixZip{zw: zip.NewWriter(tmp)} })
	_, err = f.WriteTo(io.Discard)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, 0o644) // CreateTemp makes it private
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
