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

// buildVersion, when set at build time (-ldflags "-X main.buildVersion=v1.2.3"),
// is the version printed.
var buildVersion string

// version is the module version (or, for a build from a checkout that
// stamped none, the commit), with the Go version it was built with.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "shlyuz " + orDefault(buildVersion, "(no build information)")
	}
	v := buildVersion
	if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = " (modified)"
			}
		}
	}
	switch {
	case v == "" && rev != "":
		v = "commit " + rev[:min(12, len(rev))]
	case v == "":
		v = "built without a version stamp (go run, go test or -buildvcs=false; go build in a git checkout stamps one)"
	}
	return "shlyuz " + v + modified + " " + bi.GoVersion
}
