// Command shlyuz is the Shlyuz gateway: `shlyuz serve` runs it, and
// `shlyuz admin …` is a thin client of its operator API.
package main

import (
	"fmt"
	"os"
)

const usage = `usage:
  shlyuz serve [--listen ADDR] [--db sqlite://PATH|postgres://...] [--config FILE]
  shlyuz admin <command> ...   (run "shlyuz admin help")`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "admin":
		err = admin(os.Args[2:], os.Stdout)
	case "help", "-h", "--help":
		fmt.Println(usage)
		return
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "shlyuz:", err)
		os.Exit(1)
	}
}
