// Command shlyuz is the Shlyuz gateway: `shlyuz serve` runs it, and
// `shlyuz admin …` is a thin client of its operator API.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
)

const usage = `usage:
  shlyuz serve [--listen ADDR] [--db sqlite://PATH|postgres://...] [--config FILE]   run the gateway (serve --help)
  shlyuz admin COMMAND ...                                                         the operator API's client (admin --help)
  shlyuz health [--url URL] [--live]                                               exit 0 when the gateway is ready (for container health checks)
  shlyuz version                                                                   print the version`

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
	case "health":
		err = health(os.Args[2:])
	case "version", "--version":
		fmt.Println(version())
		return
	case "help", "-h", "--help":
		fmt.Println(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "shlyuz: unknown command %q\n%s\n", os.Args[1], usage)
		os.Exit(2)
	}
	if errors.Is(err, flag.ErrHelp) { // --help: the flags were printed
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "shlyuz:", err)
		os.Exit(1)
	}
}

// version is the module version and the commit it was built from.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "shlyuz (unknown version)"
	}
	v := "shlyuz " + bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v += " " + s.Value
		case "vcs.modified":
			if s.Value == "true" {
				v += " (modified)"
			}
		}
	}
	return v + " " + bi.GoVersion
}
