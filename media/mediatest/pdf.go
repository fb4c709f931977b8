package mediatest

import (
	"fmt"
	"strings"
)

// PDF is a valid PDF of the given number of pages, each a US Letter page
// saying its number in Helvetica: a page tree of one level, a
// cross-reference table with each object's offset, a trailer.
func PDF(pages int) []byte {
	return pdf(pages, pages)
}

// PDFClaiming is PDF(pages) whose page tree's root says it has claimed
// pages: a reader that trusts /Count sees claimed.
func PDFClaiming(pages, claimed int) []byte {
	return pdf(pages, claimed)
}

func pdf(pages, count int) []byte {
	// Objects: 1 catalog, 2 page tree, 3 font, then a page and its content per page.
	var objs []string
	kids := make([]string, pages)
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	objs = append(objs, "<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), count),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i := range pages {
		text := fmt.Sprintf("BT /F1 24 Tf 72 700 Td (Page %d) Tj ET", i+1)
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(text), text))
	}
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return []byte(b.String())
}
