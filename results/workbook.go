package results

import (
	"archive/zip"
	"io"
	"mbfmu/atomicfile"

	"github.com/xuri/excelize/v2"
)

// SaveWorkbook saves a workbook built with excelize to path the way the
// XLSXWriter does (scatter charts get numeric x references, the archive
// streams to the file), atomically: it writes a temporary file in the
// same folder and renames it over path only when the whole workbook is
// written, so path never holds a partial workbook.
func SaveWorkbook(f *excelize.File, path string) error {
	out, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return &chartFixZip{zw: zip.NewWriter(out)} })
	if _, err := f.WriteTo(io.Discard); err != nil {
		out.Abort()
		return err
	}
	return out.Commit()
}
