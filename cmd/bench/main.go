// Command bench measures what the Shlyuz gateway adds to a request: the same
// requests go straight to an upstream ("direct") and through the gateway, and
// it reports the difference.
//
//	go run ./cmd/bench                 # about a minute and a half; table on stdout, bench-results.json
//	go run ./cmd/bench -quick          # a smoke run of a few seconds
//	go run ./cmd/bench -db postgres://user:pass@127.0.0.1:5432/shlyuz   # the store in PostgreSQL
//
// From the module root it builds ./cmd/shlyuz and ./cmd/fakeupstream (no
// -race) into a temporary directory and starts as child processes, on free
// loopback ports:
//
//   - three fake upstreams: "instant" (no latency), "slow" (-slow-latency,
//     20ms) and "stream" (paced at -tokens-per-sec, 200, with -stream-tokens,
//     32, tokens per reply);
//   - `shlyuz serve` with SHLYUZ_ADMIN_TOKEN set, a SQLite store in the
//     temporary directory (or -db), and a config like examples/fake-upstream.yaml
//     that routes bench/instant, bench/slow and bench/stream to those fakes,
//     with the models priced, pricing rate and K set and a large max_concurrent.
//
// Through the admin API it creates an account, tops it up and creates a key
// with a monthly ceiling, so billing and the key limit run on every request.
// Every child is polled until it answers (bounded), and every child is
// stopped on exit, on an error and on Ctrl-C (they also get SIGKILL if the
// benchmark dies).
//
// Its own load generator (net/http, keep-alive, a fixed body, only HTTP 200
// counted, the rest reported as errors) then measures:
//
//  1. added latency at concurrency 1, non-streamed, instant upstream: -n
//     requests per side after a warm-up, direct and gateway alternating in
//     blocks; p50/p90/p99/p99.9 of each and their differences;
//  2. time to first token of streams at concurrency 1 (the first "data:" line,
//     and the first chunk with content), direct vs gateway;
//  3. gaps between content chunks of streams from the paced upstream, mean and
//     p99, gateway minus direct;
//  4. throughput of a closed loop at concurrency 16, 64 and 256 against the
//     slow upstream and 64 against the instant one, -duration per side and
//     level: requests/s, their ratio, added p50/p99, and CPU time per request
//     of the gateway, the fake and the load generator from /proc;
//  5. the gateway's VmRSS idle before load, peak under load (sampled every
//     100ms) and after load once idle;
//  6. heap allocations per request from go_memstats_mallocs_total at
//     {gateway}/metrics, or "n/a" when the gateway has no such endpoint;
//  7. large contexts (-prompt-sizes, default short, 1KB, 150KB and 1MB of
//     prompt text): direct, through the bare proxy (-floor) and through the gateway, at
//     concurrency 1 in rotating blocks and in a closed loop at -prompt-conc;
//     added p50 over direct, its share of direct's own p50, the req/s ratios.
//     -only-prompts runs this scenario alone.
//
// The floor (-floor fasthttp, the default) is a bare proxy, this binary
// started again, that forwards bytes with a fasthttp server and client: what
// any proxy on the machine pays to carry a request. Scenario 1 rotates it with
// direct and the gateway, scenario 4's instant level runs it as a third side,
// and scenario 7 compares with it; the tables give the gateway's added latency
// and throughput against it. -floor nethttp puts net/http's httputil reverse
// proxy there instead, for comparison.
//
// It prints markdown tables to stdout and writes every number, the machine
// (nproc, CPU model, Go version, load average at start and end) and the
// parameters to -out as JSON. Progress goes to stderr.
//
// -cluster N compares one node with N nodes of a cluster instead of the
// scenarios above: it needs -db postgres://… (PostgreSQL answering, else one
// line and exit status 1), makes two fresh schemas there, starts a
// single-mode node on one and N sql-mode nodes on the other (free ports,
// the same config and fakes), an account and a key with a ceiling on each,
// and runs -rounds rounds of scenario 1 (direct and both setups in rotating
// blocks) and of scenario 4's levels (direct and the setups in turn, the
// order reversed every level and round; requests go to a setup's nodes in
// turn). It prints req/s, the ratio to one node, added p50/p99 at c=1, the
// nodes' CPU per request and the nodes' slice and remote reservations, and
// writes the rounds to -out. The schemas are dropped at the end, on an
// error and on Ctrl-C (-keep keeps them, and the nodes' logs).
//
//	go run ./cmd/bench -cluster 3 -db 'postgres://postgres:postgres@127.0.0.1:5432/postgres?sslmode=disable' -n 300 -levels 64 -duration 3s
//
// To measure another OpenAI-compatible gateway instead, start the fakes on
// fixed ports, point that gateway's models at them, and pass its base URL and
// a key: -instant-addr 127.0.0.1:9101 -slow-addr 127.0.0.1:9102
// -stream-addr 127.0.0.1:9103 -target http://127.0.0.1:8080/v1 -target-key K
// (-target-pid PID adds its memory). -direct URL replaces the fakes with
// another upstream base (e.g. http://127.0.0.1:9090/v1). Only loopback
// addresses are used unless -allow-remote is given.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C ends the process at once; the children get SIGKILL then
	}()
	var err error
	if len(os.Args) == 5 && os.Args[1] == bareProxyCmd {
		err = runBareProxy(os.Args[2], os.Args[3], os.Args[4])
	} else {
		err = run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	}
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// options are the flags.
type options struct {
	n, warmup, block             int
	ttftStreams, gapStreams      int
	tokensPerSec, streamTokens   int
	replyTokens, maxTokens       int
	slowLatency                  time.Duration
	levels                       string
	instantConc                  int
	duration, levelWarmup        time.Duration
	allocRequests                int
	sampleEvery, idleWait, pause time.Duration
	db                           string
	target, targetKey            string
	targetPID                    int
	metrics                      string
	cpuProfile                   string
	durable                      bool
	direct, directSlow           string
	directStream, directKey      string
	directModel                  string
	modelInstant, modelSlow      string
	modelStream                  string
	instantAddr, slowAddr        string
	streamAddr                   string
	out                          string
	quick, keep, allowRemote     bool
	credits, keyCeiling          int64
	maxTime                      time.Duration
	levelList                    []int
	params                       map[string]string
	startupTimeout, readyTimeout time.Duration
	promptSizes                  []promptSize
	promptSizeList               string
	promptN, promptConc          int
	promptDuration               time.Duration
	onlyPrompts                  bool
	floorKind                    string
	cluster, rounds              int
}

// quickValues shrink the run to a few seconds under -quick (flags given explicitly win).
var quickValues = map[string]string{
	"n": "200", "warmup": "20", "block": "20", "ttft-streams": "30", "gap-streams": "3",
	"duration": "300ms", "level-warmup": "100ms", "alloc-requests": "100", "idle-wait": "300ms", "pause": "50ms",
	"prompt-n": "20", "prompt-duration": "300ms",
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.n, "n", 2000, "requests per side at concurrency 1 (scenario 1)")
	fs.IntVar(&o.warmup, "warmup", 200, "warm-up requests per side before scenario 1 (streams: a tenth)")
	fs.IntVar(&o.block, "block", 50, "scenario 1 alternates direct and gateway in blocks of this many requests")
	fs.IntVar(&o.ttftStreams, "ttft-streams", 300, "streams per side for time to first token (scenario 2)")
	fs.IntVar(&o.gapStreams, "gap-streams", 40, "paced streams per side for inter-chunk gaps (scenario 3)")
	fs.IntVar(&o.tokensPerSec, "tokens-per-sec", 200, "pacing of the stream fake")
	fs.IntVar(&o.streamTokens, "stream-tokens", 32, "tokens per reply of the stream fake")
	fs.IntVar(&o.replyTokens, "reply-tokens", 16, "tokens per reply of the instant and slow fakes")
	fs.IntVar(&o.maxTokens, "max-tokens", 64, "max_tokens of every request (bounds the reservation)")
	fs.DurationVar(&o.slowLatency, "slow-latency", 20*time.Millisecond, "latency of the slow fake")
	fs.StringVar(&o.levels, "levels", "16,64,256", "concurrency levels against the slow upstream (scenario 4)")
	fs.IntVar(&o.instantConc, "instant-conc", 64, "concurrency against the instant upstream (scenario 4; 0: skip)")
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "measured time per side and level (scenario 4)")
	fs.DurationVar(&o.levelWarmup, "level-warmup", time.Second, "unmeasured warm-up per side and level")
	fs.IntVar(&o.allocRequests, "alloc-requests", 1000, "requests between the two /metrics samples (scenario 6)")
	fs.DurationVar(&o.sampleEvery, "sample", 100*time.Millisecond, "VmRSS sampling interval")
	fs.DurationVar(&o.pause, "pause", 300*time.Millisecond, "quiet time between phases")
	fs.DurationVar(&o.idleWait, "idle-wait", 3*time.Second, "idle time after the load before the last VmRSS reading")
	fs.StringVar(&o.db, "db", "", "store of the built-in gateway: postgres://… (default: SQLite in the temporary directory)")
	fs.StringVar(&o.target, "target", "", "measure this OpenAI-compatible base URL (…/v1) instead of the built-in gateway; several comma-separated (a cluster's nodes) take turns")
	fs.StringVar(&o.targetKey, "target-key", "", "API key for -target")
	fs.IntVar(&o.targetPID, "target-pid", 0, "pid of the -target gateway, for its memory")
	fs.StringVar(&o.metrics, "metrics", "", "Prometheus endpoint of the gateway (default {gateway root}/metrics)")
	fs.StringVar(&o.direct, "direct", "", "upstream base URL (…/v1) for direct requests instead of the fakes")
	fs.StringVar(&o.directSlow, "direct-slow", "", "upstream base URL for the slow scenarios (default -direct, else the slow fake)")
	fs.StringVar(&o.directStream, "direct-stream", "", "upstream base URL for the paced streams (default -direct, else the stream fake)")
	fs.StringVar(&o.directKey, "direct-key", "", "API key of the -direct upstream (also given to the built-in gateway)")
	fs.StringVar(&o.directModel, "direct-model", "", "model name at the -direct upstream (default: the benchmark model ids)")
	fs.StringVar(&o.modelInstant, "model-instant", "bench/instant", "model routed to the instant upstream")
	fs.StringVar(&o.modelSlow, "model-slow", "bench/slow", "model routed to the slow upstream")
	fs.StringVar(&o.modelStream, "model-stream", "bench/stream", "model routed to the paced stream upstream")
	fs.StringVar(&o.instantAddr, "instant-addr", "127.0.0.1:0", "listen address of the instant fake (port 0: a free one)")
	fs.StringVar(&o.slowAddr, "slow-addr", "127.0.0.1:0", "listen address of the slow fake")
	fs.StringVar(&o.streamAddr, "stream-addr", "127.0.0.1:0", "listen address of the stream fake")
	fs.StringVar(&o.out, "out", "bench-results.json", "JSON results file (empty: none)")
	fs.BoolVar(&o.quick, "quick", false, "a smoke run of a few seconds: "+quickHelp())
	fs.BoolVar(&o.durable, "durable", true, "durable settlement in the gateways the bench starts (cluster.durable_settle; false: a reply no longer waits for its charge's commit or log append, to measure what that wait costs)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write the built-in gateway's CPU profiles of scenario 1, of the instant closed loop, of the first 2 s of each prompt size's concurrency-1 blocks and of its closed loop, to PREFIX-c1.pprof, PREFIX-instant.pprof, PREFIX-prompt-SIZE.pprof and PREFIX-prompt-SIZE-cN.pprof (scenario 7's allocations then count the profiler's too); with -cluster, each node's profile of its setup's first instant closed loop to PREFIX-1node-node1-instant.pprof, PREFIX-3nodes-node2-instant.pprof, …")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (binaries, config, logs, SQLite)")
	fs.BoolVar(&o.allowRemote, "allow-remote", false, "allow -target and -direct URLs that are not loopback")
	fs.Int64Var(&o.credits, "credits", 10_000_000_000, "credits topped up on the benchmark account")
	fs.Int64Var(&o.keyCeiling, "key-ceiling", 5_000_000_000, "monthly credit ceiling of the benchmark key")
	fs.StringVar(&o.promptSizeList, "prompt-sizes", "short,1KB,150KB,1MB", "prompt sizes of scenario 7 (KB, MB: thousands, millions of characters; empty: skip)")
	fs.IntVar(&o.promptN, "prompt-n", 300, "requests per side and size at concurrency 1 (scenario 7; a third from 500KB up)")
	fs.IntVar(&o.promptConc, "prompt-conc", 64, "concurrency of scenario 7's closed loop")
	fs.DurationVar(&o.promptDuration, "prompt-duration", 3*time.Second, "measured time per side and size of scenario 7's closed loop")
	fs.BoolVar(&o.onlyPrompts, "only-prompts", false, "run scenario 7 alone")
	fs.StringVar(&o.floorKind, "floor", floorProxy, "the bare proxy measured beside the gateway in scenarios 1, 4 (instant) and 7: fasthttp (the floor: bytes forwarded by a fasthttp server and client) or nethttp (net/http/httputil's reverse proxy; empty: none)")
	fs.IntVar(&o.cluster, "cluster", 0, "compare one single-mode node with this many sql-mode nodes instead of the scenarios above: fresh schemas of -db (PostgreSQL), dropped at the end unless -keep; -rounds rounds of scenario 1 and scenario 4's levels, the setups taking turns")
	fs.IntVar(&o.rounds, "rounds", 2, "rounds of -cluster")
	fs.DurationVar(&o.maxTime, "max-time", 20*time.Minute, "the whole run is cut after this")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if o.quick {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		for name, v := range quickValues {
			if !set[name] {
				if err := fs.Set(name, v); err != nil {
					return nil, err
				}
			}
		}
	}
	sizes, err := parsePromptSizes(o.promptSizeList)
	if err != nil {
		return nil, err
	}
	o.promptSizes = sizes
	for _, s := range strings.Split(o.levels, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > 4096 {
			return nil, fmt.Errorf("-levels: %q is not a concurrency from 1 to 4096", s)
		}
		o.levelList = append(o.levelList, v)
	}
	switch {
	case o.n < 1 || o.warmup < 0 || o.ttftStreams < 1 || o.gapStreams < 1:
		return nil, errors.New("-n, -ttft-streams and -gap-streams must be at least 1, -warmup at least 0")
	case o.promptN < 1 || o.promptConc < 1 || o.promptConc > 4096 || o.promptDuration <= 0 || o.promptDuration > 10*time.Minute:
		return nil, errors.New("-prompt-n must be at least 1, -prompt-conc from 1 to 4096, -prompt-duration positive and at most 10m")
	case len(o.promptSizes) > 0 && o.floorKind == "":
		return nil, errors.New("-prompt-sizes needs a -floor proxy to compare with (or -prompt-sizes '')")
	case o.onlyPrompts && len(o.promptSizes) == 0:
		return nil, errors.New("-only-prompts needs -prompt-sizes")
	case o.floorKind != "" && o.floorKind != floorProxy && o.floorKind != netHTTPProxy:
		return nil, fmt.Errorf("-floor: %q is neither %s nor %s", o.floorKind, floorProxy, netHTTPProxy)
	case o.instantConc < 0 || o.instantConc > 4096:
		return nil, errors.New("-instant-conc must be from 0 to 4096")
	case o.duration <= 0 || o.duration > 10*time.Minute:
		return nil, errors.New("-duration must be positive and at most 10m")
	case o.sampleEvery < 10*time.Millisecond:
		return nil, errors.New("-sample must be at least 10ms")
	case o.tokensPerSec < 0 || o.streamTokens < 1 || o.replyTokens < 1 || o.maxTokens < 1:
		return nil, errors.New("-tokens-per-sec must be 0 or more; -stream-tokens, -reply-tokens and -max-tokens at least 1")
	case o.target != "" && o.targetKey == "":
		return nil, errors.New("-target needs -target-key")
	case o.target != "" && o.db != "":
		return nil, errors.New("-db is for the built-in gateway; it makes no sense with -target")
	case o.cluster != 0 && (o.cluster < 2 || o.cluster > 16):
		return nil, errors.New("-cluster must be from 2 to 16 nodes")
	case o.cluster > 0 && !strings.HasPrefix(o.db, "postgres://") && !strings.HasPrefix(o.db, "postgresql://"):
		return nil, errors.New("-cluster needs -db postgres://… (its nodes share a PostgreSQL database)")
	case o.cluster > 0 && o.onlyPrompts:
		return nil, errors.New("-cluster runs scenarios 1 and 4 only; it makes no sense with -only-prompts")
	case o.rounds < 1 || o.rounds > 100:
		return nil, errors.New("-rounds must be from 1 to 100")
	case o.db != "" && !strings.HasPrefix(o.db, "postgres://") && !strings.HasPrefix(o.db, "postgresql://") && !strings.HasPrefix(o.db, "sqlite://"):
		return nil, errors.New("-db must be postgres://… (or sqlite://PATH)")
	}
	if o.direct != "" {
		if o.directSlow == "" {
			o.directSlow = o.direct
		}
		if o.directStream == "" {
			o.directStream = o.direct
		}
	}
	if !o.allowRemote {
		for _, u := range append(strings.Split(o.target, ","), o.direct, o.directSlow, o.directStream, o.metrics) {
			if u != "" {
				if err := checkLoopbackURL(u); err != nil {
					return nil, err
				}
			}
		}
	}
	o.startupTimeout, o.readyTimeout = 60*time.Second, 30*time.Second
	o.params = map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		v := f.Value.String()
		switch f.Name {
		case "target-key", "direct-key":
			if v != "" {
				v = "(set)"
			}
		case "db":
			v = redactDSN(v)
		}
		o.params[f.Name] = v
	})
	return o, nil
}

func quickHelp() string {
	var parts []string
	for _, name := range []string{"n", "warmup", "block", "ttft-streams", "gap-streams", "duration", "level-warmup", "alloc-requests", "idle-wait", "pause"} {
		parts = append(parts, "-"+name+" "+quickValues[name])
	}
	return strings.Join(parts, " ")
}

// bench is one run.
type bench struct {
	o                        *options
	start                    time.Time
	log                      io.Writer
	client                   *http.Client // the load generator
	ctl                      *http.Client // set-up, probes and scrapes
	tmp                      string
	res                      *Results
	gwPID                    int // 0: unknown
	fakePID                  map[string]int
	adminToken               string  // of the built-in gateway, for its /metrics
	barePID                  int     // the bare proxy (-floor) in front of the instant upstream; 0: none
	bareURL                  string  // its …/v1 base
	bareD                    *target // non-streamed, instant upstream, through the bare proxy
	instantURL, instantModel string  // scenario 7's direct side

	instantD, instantG *target // non-streamed, instant upstream
	slowD, slowG       *target // non-streamed, slow upstream
	ttftD, ttftG       *target // streamed, instant upstream
	pacedD, pacedG     *target // streamed, paced upstream
	gwBase, gwKey      string
}

func (b *bench) logf(format string, a ...any) {
	fmt.Fprintf(b.log, "bench %5.1fs: "+format+"\n", append([]any{time.Since(b.start).Seconds()}, a...)...)
}

// Params are the flags of the run, secrets hidden.
type Params = map[string]string

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.maxTime)
	defer cancel()
	if o.cluster > 0 { // before anything else, so that an unreachable PostgreSQL is one line
		if err := pgReachable(ctx, o.db); err != nil {
			return err
		}
	}
	started := time.Now()
	b := &bench{o: o, start: started, log: stderr, client: newClient(4096), ctl: newClient(16), fakePID: map[string]int{}}
	defer b.client.CloseIdleConnections()
	defer b.ctl.CloseIdleConnections()

	root := ""
	needGateway := o.target == ""
	needFakes := o.direct == "" || o.directSlow == "" || o.directStream == ""
	if needGateway || needFakes {
		if root, err = moduleRoot(ctx); err != nil {
			return err
		}
	}
	b.res = &Results{Run: Run{Tool: "github.com/shlyuz/shlyuz/cmd/bench", StartedAt: started.UTC(), Params: o.params,
		Machine: machineInfo(ctx, root)}}
	b.logf("load average at start: %s", b.res.Machine.LoadAvgStart)

	if b.tmp, err = os.MkdirTemp("", "shlyuz-bench-"); err != nil {
		return err
	}
	defer func() {
		if o.keep {
			b.logf("kept %s", b.tmp)
			return
		}
		_ = os.RemoveAll(b.tmp)
	}()
	var schemas *clusterSchemas
	if o.cluster > 0 { // dropped after the children stopped (defers run in reverse)
		if schemas, err = createSchemas(ctx, o.db, fmt.Sprintf("bench_cluster_%d", started.UnixNano()), 2); err != nil {
			return err
		}
		b.logf("schemas %s on %s", strings.Join(schemas.names, ", "), redactDSN(o.db))
		defer func() {
			if o.keep {
				b.logf("kept schemas %s", strings.Join(schemas.names, ", "))
				return
			}
			if derr := schemas.drop(); derr != nil {
				b.logf("%v", derr)
				err = errors.Join(err, derr)
				return
			}
			b.logf("dropped the schemas")
		}()
	}
	var children []*child
	defer func() { // the gateway first, then the fakes
		for i := len(children) - 1; i >= 0; i-- {
			children[i].stop(15 * time.Second)
		}
		if len(children) > 0 {
			b.logf("stopped %d child processes", len(children))
		}
	}()

	if needGateway || needFakes {
		var pkgs []string
		if needGateway {
			pkgs = append(pkgs, "./cmd/shlyuz")
		}
		if needFakes {
			pkgs = append(pkgs, "./cmd/fakeupstream")
		}
		b.logf("building %s in %s", strings.Join(pkgs, " "), b.tmp)
		if err := build(ctx, root, b.tmp, pkgs...); err != nil {
			return err
		}
	}

	// The fakes.
	startFake := func(name, addr string, extra ...string) (string, error) {
		addr, err := resolveAddr(addr)
		if err != nil {
			return "", fmt.Errorf("-%s-addr: %w", name, err)
		}
		args := append([]string{"-listen", addr}, extra...)
		c, err := startChild("fake "+name, filepath.Join(b.tmp, "fakeupstream"), args, os.Environ(), filepath.Join(b.tmp, "fake-"+name+".log"))
		if err != nil {
			return "", err
		}
		children = append(children, c)
		b.fakePID[name] = c.pid()
		base := "http://" + addr + "/v1"
		if err := waitReady(ctx, c, o.startupTimeout, "fake "+name, func() bool { return httpOK(b.ctl, base+"/models") }); err != nil {
			return "", err
		}
		b.logf("fake %s upstream on %s (%s)", name, base, strings.Join(extra, " "))
		return base, nil
	}
	instantURL, slowURL, streamURL := o.direct, o.directSlow, o.directStream
	if instantURL == "" {
		if instantURL, err = startFake("instant", o.instantAddr, "-reply-tokens", strconv.Itoa(o.replyTokens)); err != nil {
			return err
		}
	}
	if slowURL == "" {
		if slowURL, err = startFake("slow", o.slowAddr, "-latency", o.slowLatency.String(), "-reply-tokens", strconv.Itoa(o.replyTokens)); err != nil {
			return err
		}
	}
	if streamURL == "" && o.cluster == 0 {
		if streamURL, err = startFake("stream", o.streamAddr, "-tokens-per-sec", strconv.Itoa(o.tokensPerSec), "-reply-tokens", strconv.Itoa(o.streamTokens)); err != nil {
			return err
		}
	}
	if o.cluster > 0 {
		return b.runCluster(ctx, schemas, instantURL, slowURL, &children, stdout)
	}
	setup := Setup{DirectInstant: instantURL, DirectSlow: slowURL, DirectStream: streamURL,
		ModelInstant: o.modelInstant, ModelSlow: o.modelSlow, ModelStream: o.modelStream}

	if o.floorKind != "" {
		bp, base, err := b.startBareProxy(ctx, instantURL, o.floorKind)
		if bp != nil {
			children = append(children, bp)
		}
		if err != nil {
			return err
		}
		b.barePID, b.bareURL = bp.pid(), base
	}

	// The gateway.
	if needGateway {
		gw, err := b.startGateway(ctx, &setup, b.upstreams(instantURL, slowURL, streamURL))
		if gw != nil {
			children = append(children, gw)
		}
		if err != nil {
			return err
		}
	} else {
		setup.Gateway, setup.GatewayURL, setup.GatewayPID = "target", o.target, o.targetPID
		b.gwBase, b.gwKey, b.gwPID = strings.TrimRight(o.target, "/"), o.targetKey, o.targetPID // may list several nodes
	}
	b.res.Setup = setup

	// What the load generator sends.
	dm := o.directModelFor
	b.instantURL, b.instantModel = instantURL, dm(o.modelInstant)
	b.instantD = newTarget(instantURL, o.directKey, dm(o.modelInstant), false, o.maxTokens)
	if b.bareURL != "" {
		b.bareD = newTarget(b.bareURL, o.directKey, dm(o.modelInstant), false, o.maxTokens)
	}
	b.instantG = newTarget(b.gwBase, b.gwKey, o.modelInstant, false, o.maxTokens)
	b.slowD = newTarget(slowURL, o.directKey, dm(o.modelSlow), false, o.maxTokens)
	b.slowG = newTarget(b.gwBase, b.gwKey, o.modelSlow, false, o.maxTokens)
	b.ttftD = newTarget(instantURL, o.directKey, dm(o.modelInstant), true, o.maxTokens)
	b.ttftG = newTarget(b.gwBase, b.gwKey, o.modelInstant, true, o.maxTokens)
	b.pacedD = newTarget(streamURL, o.directKey, dm(o.modelStream), true, o.maxTokens)
	b.pacedG = newTarget(b.gwBase, b.gwKey, o.modelStream, true, o.maxTokens)
	for _, t := range []*target{b.instantD, b.instantG, b.slowD, b.slowG, b.pacedD, b.pacedG} {
		if err := b.probe(ctx, t); err != nil {
			return err
		}
	}

	if err := b.measure(ctx); err != nil {
		return err
	}

	b.finish(&b.res.Run)
	b.res.Notes = b.notes()
	if o.out != "" {
		if err := writeJSON(o.out, b.res); err != nil {
			return err
		}
		b.logf("wrote %s", o.out)
	}
	writeMarkdown(stdout, b.res)
	return nil
}

// finish notes the load average at the end, the finishing time and the wall time.
func (b *bench) finish(r *Run) {
	r.Machine.LoadAvgEnd = loadAvg()
	b.logf("load average at end: %s", r.Machine.LoadAvgEnd)
	r.FinishedAt = time.Now().UTC()
	r.WallSeconds = round4(r.FinishedAt.Sub(r.StartedAt).Seconds())
}

// directModelFor is the model name the load generator sends straight to the
// upstream for model: -direct-model when given.
func (o *options) directModelFor(model string) string {
	if o.directModel != "" {
		return o.directModel
	}
	return model
}

// startGateway writes the config, starts `shlyuz serve`, waits until it
// answers and sets up the account and the key.
func (b *bench) startGateway(ctx context.Context, setup *Setup, ups []benchUpstream) (*child, error) {
	o := b.o
	cfgPath, cfg, err := b.writeConfig(ups)
	if err != nil {
		return nil, err
	}
	db := o.db
	if db == "" {
		db = "sqlite://" + filepath.Join(b.tmp, "gateway.db")
	}
	token := randomHex(16)
	b.adminToken = token
	gw, root, err := b.startNode(ctx, "gateway", db, cfgPath, token)
	if err != nil {
		return gw, err
	}
	_, key, err := setupAccount(ctx, b.ctl, root, token, o.credits, o.keyCeiling)
	if err != nil {
		return gw, fmt.Errorf("account set-up: %w\ngateway log ends:\n%s", err, gw.tail(20))
	}
	b.gwBase, b.gwKey, b.gwPID = root+"/api/v1", key, gw.pid()
	setup.Gateway, setup.GatewayURL, setup.GatewayPID = "built-in", b.gwBase, gw.pid()
	setup.DB = redactDSN(db)
	if o.db == "" {
		setup.DB = "sqlite (temporary directory)"
	}
	setup.Credits, setup.KeyCeiling, setup.Config = o.credits, o.keyCeiling, cfg
	b.logf("gateway pid %d on %s, store %s", gw.pid(), root, setup.DB)
	return gw, nil
}

// upstreams are the built-in gateway's upstreams: one per scenario whose
// upstream URL is known (an empty URL is left out).
func (b *bench) upstreams(instantURL, slowURL, streamURL string) []benchUpstream {
	o := b.o
	var ups []benchUpstream
	for _, u := range []benchUpstream{
		{name: "instant", model: o.modelInstant, baseURL: instantURL, withKey: o.direct != "" && o.directKey != ""},
		{name: "slow", model: o.modelSlow, baseURL: slowURL, withKey: o.directSlow != "" && o.directKey != ""},
		{name: "stream", model: o.modelStream, baseURL: streamURL, withKey: o.directStream != "" && o.directKey != ""},
	} {
		if u.baseURL != "" {
			ups = append(ups, u)
		}
	}
	return ups
}

// writeConfig writes the gateway's config into the temporary directory.
func (b *bench) writeConfig(ups []benchUpstream) (path, cfg string, err error) {
	cfg = gatewayConfig(ups)
	if !b.o.durable {
		cfg += "cluster:\n  durable_settle: false\n"
	}
	if b.o.directModel != "" {
		cfg = strings.ReplaceAll(cfg, "strip_prefix: false}", "strip_prefix: false, upstream_model: "+strconv.Quote(b.o.directModel)+"}")
	}
	path = filepath.Join(b.tmp, "gateway.yaml")
	return path, cfg, os.WriteFile(path, []byte(cfg), 0o600)
}

// startNode starts `shlyuz serve` on a free loopback port with the store db
// and the admin token (extraEnv added to the environment, its log
// NAME.log in the temporary directory) and waits until it answers; root is
// its http://HOST:PORT.
func (b *bench) startNode(ctx context.Context, name, db, cfgPath, token string, extraEnv ...string) (c *child, root string, err error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	env := append(os.Environ(), "SHLYUZ_ADMIN_TOKEN="+token)
	if b.o.directKey != "" {
		env = append(env, upstreamKeyEnv+"="+b.o.directKey)
	}
	env = append(env, extraEnv...)
	c, err = startChild(name, filepath.Join(b.tmp, "shlyuz"), []string{"serve", "--listen", addr, "--db", db, "--config", cfgPath},
		env, filepath.Join(b.tmp, name+".log"))
	if err != nil {
		return nil, "", err
	}
	root = "http://" + addr
	if err := waitReady(ctx, c, b.o.startupTimeout, name+" to answer GET /api/pricing", func() bool { return httpOK(b.ctl, root+"/api/pricing") }); err != nil {
		return c, root, err
	}
	return c, root, nil
}

// probe sends one request until it succeeds, so every route is known to work before measuring.
func (b *bench) probe(ctx context.Context, t *target) error {
	var last string
	buf := make([]byte, 16<<10)
	err := waitReady(ctx, nil, b.o.readyTimeout, t.urls[0]+" to answer "+string(t.body), func() bool {
		_, kind := do(ctx, b.ctl, t, buf)
		last = kind
		return kind == ""
	})
	if err != nil {
		return fmt.Errorf("%w (last: %s)", err, last)
	}
	return nil
}

// notes say what limits the numbers.
func (b *bench) notes() []string {
	m := b.res.Machine
	notes := []string{
		fmt.Sprintf("The load generator, the fakes and the gateway share this machine's %d CPUs; no CPU is pinned. Load average %s at start, %s at end (1/5/15 min).", m.NProc, m.LoadAvgStart, m.LoadAvgEnd),
		fmt.Sprintf("p99.9 of %d samples is the %s; treat it as indicative.", b.o.n, slowest(b.o.n-int(math.Ceil(0.999*float64(b.o.n)-1e-9))+1)),
		"CPU µs/request are from /proc/<pid>/stat (10 ms ticks) over each measured phase, requests in flight at its end included; machine busy is from /proc/stat, \"others\" is what neither the gateway, the fake nor the load generator used.",
	}
	return notes
}

// slowest is "slowest sample" or "3rd slowest sample".
func slowest(k int) string {
	if k <= 1 {
		return "slowest sample"
	}
	return ordinal(k) + " slowest sample"
}

// ordinal is "1st", "2nd", "3rd", "4th", …
func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}
