package media

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// pdfConfig is pdfcpu's configuration without its config directory (which
// it would otherwise create under the user's home on first use).
var pdfConfig = sync.OnceValue(func() *model.Configuration {
	api.DisableConfigDir()
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	return conf
})

// PDFPages is the number of pages of a PDF as a reader renders them: pdfcpu
// reads the file's cross-reference table and walks its page tree, and a
// tree whose leaves disagree with the /Count its root claims is an error,
// not a page count. A file pdfcpu cannot open (damaged, encrypted, not a
// PDF) is an error. Its time and memory are bounded by the file's size,
// which the request body's limit bounds.
func PDFPages(b []byte) (pages int, err error) {
	if !bytes.HasPrefix(bytes.TrimLeft(b[:min(len(b), 1024)], "\x00\t\n\f\r "), []byte("%PDF-")) {
		return 0, errors.New("the file is not a PDF")
	}
	defer func() { // a reader of hostile files must not take the process down
		if r := recover(); r != nil {
			pages, err = 0, fmt.Errorf("the PDF could not be read: %v", r)
		}
	}()
	ctx, err := api.ReadAndValidate(bytes.NewReader(b), pdfConfig())
	if err != nil {
		return 0, err
	}
	if ctx.PageCount < 1 {
		return 0, errors.New("the PDF has no pages")
	}
	return ctx.PageCount, nil
}
