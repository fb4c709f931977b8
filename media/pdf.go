package media

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"time"

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

// pdfReaders bounds the PDFs read at once, and pdfReadTime how long a
// caller waits for one: a file that makes the reader spin ties up at most
// these, and its request is refused rather than held.
var pdfReaders = make(chan struct{}, 2)

const pdfReadTime = 10 * time.Second

// PDFPages is the number of pages of a PDF as a reader renders them: pdfcpu
// reads the file's cross-reference table and walks its page tree, and a
// tree whose leaves disagree with the /Count its root claims is an error,
// not a page count. A file pdfcpu cannot open (damaged, encrypted, not a
// PDF) is an error. Its time and memory are bounded by the file's size,
// which the request body's limit bounds; a read that waits or runs past
// pdfReadTime is an error.
func PDFPages(b []byte) (int, error) {
	timer := time.NewTimer(pdfReadTime)
	defer timer.Stop()
	select {
	case pdfReaders <- struct{}{}:
	case <-timer.C:
		return 0, errors.New("the PDF reader is busy")
	}
	type result struct {
		pages int
		err   error
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-pdfReaders }()
		n, err := pdfPages(b)
		done <- result{n, err}
	}()
	select {
	case r := <-done:
		return r.pages, r.err
	case <-timer.C:
		return 0, errors.New("the PDF took too long to read")
	}
}

// pdfPages reads b's page count with pdfcpu.
func pdfPages(b []byte) (pages int, err error) {
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
