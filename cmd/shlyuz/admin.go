package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// adminCommand is one `shlyuz admin` subcommand: its positional argument (if
// any), its own flags, and the request it makes of the operator API.
type adminCommand struct {
	name, arg, summary string
	// flags declares the command's flags on fs and returns what builds its
	// request from the positional argument once they are parsed.
	flags func(fs *flag.FlagSet) func(arg string) (method, path string, body map[string]any, err error)
}

var adminCommands = []adminCommand{
	{"create-account", "EMAIL", "create an account", func(fs *flag.FlagSet) func(string) (string, string, map[string]any, error) {
		return func(email string) (string, string, map[string]any, error) {
			return "POST", "/api/admin/accounts", map[string]any{"email": email}, nil
		}
	}},
	{"account", "ACCOUNT_ID", "show an account, its balance and keys", func(fs *flag.FlagSet) func(string) (string, string, map[string]any, error) {
		return func(id string) (string, string, map[string]any, error) {
			return "GET", "/api/admin/accounts/" + id, nil, nil
		}
	}},
	{"topup", "ACCOUNT_ID", "add bought credits", func(fs *flag.FlagSet) func(string) (string, string, map[string]any, error) {
		rubles := fs.String("rubles", "", "rubles to add (a decimal, at most 5 places)")
		credits := fs.String("credits", "", "credits to add (a whole number)")
		idem := fs.String("idempotency-key", "", "required: makes a retried top-up harmless")
		return func(id string) (string, string, map[string]any, error) {
			body := map[string]any{"idempotency_key": *idem}
			switch {
			case (*rubles == "") == (*credits == ""):
				return "", "", nil, errors.New("give exactly one of --rubles and --credits")
			case *idem == "":
				return "", "", nil, errors.New("--idempotency-key is required")
			case *rubles != "":
				if _, err := shlyuz.RublesToCredits(*rubles); err != nil {
					return "", "", nil, fmt.Errorf("--rubles: %v", err)
				}
				body["rubles"] = *rubles
			default:
				n, err := wholeCredits("--credits", *credits)
				if err != nil {
					return "", "", nil, err
				}
				body["credits"] = n
			}
			return "POST", "/api/admin/accounts/" + id + "/topups", body, nil
		}
	}},
	{"grant-plan", "ACCOUNT_ID", "give an account a plan's package", func(fs *flag.FlagSet) func(string) (string, string, map[string]any, error) {
		plan := fs.String("plan", "", "required: the plan's id")
		idem := fs.String("idempotency-key", "", "required: makes a retried grant harmless")
		return func(id string) (string, string, map[string]any, error) {
			if *plan == "" || *idem == "" {
				return "", "", nil, errors.New("--plan and --idempotency-key are required")
			}
			return "POST", "/api/admin/accounts/" + id + "/plans", map[string]any{"plan_id": *plan, "idempotency_key": *idem}, nil
		}
	}},
	{"create-key", "ACCOUNT_ID", "make an API key (shown once)", func(fs *flag.FlagSet) func(string) (string, string, map[string]any, error) {
		name := fs.String("name", "", "the key's name")
		limit := fs.String("limit", "", "ceiling in credits (a whole number); none: no ceiling")
		reset := fs.String("limit-reset", "", "day, week or month: the ceiling's period (needs --limit)")
		expires := fs.String("expires-at", "", "when the key stops working: a date (2027-06-30) or an RFC 3339 instant")
		rpm := fs.String("rpm", "", "rate limit: requests a minute")
		tpm := fs.String("tpm", "", "rate limit: tokens a minute")
		management := fs.Bool("management", false, "a management key: manages the account's API keys (/api/v1/keys), calls no model")
		allowed := fs.String("allowed-models", "", "the models the key may call, comma-separated: ids and provider/ prefixes (openai/gpt-4o,anthropic/); none: any")
		return func(id string) (string, string, map[string]any, error) {
			body := map[string]any{}
			if *management {
				body["management"] = true
			}
			if list := shlyuz.SplitAllowedModels(*allowed); len(list) > 0 {
				body["allowed_models"] = list
			}
			rate := map[string]int64{}
			for _, f := range []struct{ flag, field, v string }{{"--rpm", "requests_per_minute", *rpm}, {"--tpm", "tokens_per_minute", *tpm}} {
				if f.v == "" {
					continue
				}
				n, err := strconv.ParseInt(f.v, 10, 64)
				if err != nil || n < 1 {
					return "", "", nil, fmt.Errorf("%s: %q is not a whole number above 0", f.flag, f.v)
				}
				rate[f.field] = n
			}
			if len(rate) > 0 {
				body["rate_limit"] = rate
			}
			if *name != "" {
				body["name"] = *name
			}
			if *limit != "" {
				n, err := wholeCredits("--limit", *limit)
				if err != nil {
					return "", "", nil, err
				}
				body["limit"] = n
			}
			if *reset != "" {
				if *limit == "" {
					return "", "", nil, errors.New("--limit-reset needs --limit: a period resets a ceiling")
				}
				if r := shlyuz.LimitReset(*reset); r != shlyuz.ResetDay && r != shlyuz.ResetWeek && r != shlyuz.ResetMonth {
					return "", "", nil, fmt.Errorf("--limit-reset: %q is not day, week or month", *reset)
				}
				body["limit_reset"] = *reset
			}
			if *expires != "" {
				at, err := shlyuz.ParseInstant(*expires)
				if err != nil {
					return "", "", nil, fmt.Errorf("--expires-at: %v", err)
				}
				body["expires_at"] = at.Format(time.RFC3339)
			}
			return "POST", "/api/admin/accounts/" + id + "/keys", body, nil
		}
	}},
	{"revoke-key", "KEY_ID", "revoke a key at once", func(fs *flag.FlagSet) func(string) (string, string, map[string]any, error) {
		return func(id string) (string, string, map[string]any, error) {
			return "DELETE", "/api/admin/keys/" + id, nil, nil
		}
	}},
	{"set-pricing", "", "set the exchange rate and K", func(fs *flag.FlagSet) func(string) (string, string, map[string]any, error) {
		rate := fs.String("rate", "", "rubles per US dollar")
		k := fs.String("k", "", "coefficient K")
		return func(string) (string, string, map[string]any, error) {
			body := map[string]any{}
			for flagName, v := range map[string]string{"rate": *rate, "K": *k} {
				if v == "" {
					continue
				}
				if _, err := shlyuz.ParseDecimal(v); err != nil {
					return "", "", nil, fmt.Errorf("--%s: %v", strings.ToLower(flagName), err)
				}
				body[flagName] = v
			}
			if len(body) == 0 {
				return "", "", nil, errors.New("give --rate, --k or both")
			}
			return "PUT", "/api/admin/pricing", body, nil
		}
	}},
	{"set-plan", "PLAN_ID", "create or change a plan", func(fs *flag.FlagSet) func(string) (string, string, map[string]any, error) {
		name := fs.String("name", "", "the plan's name")
		price := fs.String("price-rubles", "", "its price in rubles")
		pkg := fs.String("package-credits", "", "credits in its package (a whole number)")
		period := fs.String("period", "", "day, week or month")
		return func(id string) (string, string, map[string]any, error) {
			n, err := wholeCredits("--package-credits", *pkg)
			if err != nil {
				return "", "", nil, err
			}
			body := map[string]any{"package_credits": n}
			for k, v := range map[string]string{"name": *name, "price_rubles": *price, "period": *period} {
				if v != "" {
					body[k] = v
				}
			}
			return "PUT", "/api/admin/plans/" + id, body, nil
		}
	}},
	{"accounts", "", "list accounts", func(fs *flag.FlagSet) func(string) (string, string, map[string]any, error) {
		limit := fs.Int("limit", 50, "how many")
		offset := fs.Int("offset", 0, "how many to skip")
		return func(string) (string, string, map[string]any, error) {
			return "GET", fmt.Sprintf("/api/admin/accounts?limit=%d&offset=%d", *limit, *offset), nil, nil
		}
	}},
	{"activity", "ACCOUNT", "an account's generations, newest first", func(fs *flag.FlagSet) func(string) (string, string, map[string]any, error) {
		limit := fs.Int("limit", 50, "how many")
		return func(id string) (string, string, map[string]any, error) {
			return "GET", fmt.Sprintf("/api/admin/accounts/%s/activity?limit=%d", url.PathEscape(id), *limit), nil, nil
		}
	}},
	{"reconcile", "", "check that every balance equals the sum of its ledger", func(fs *flag.FlagSet) func(string) (string, string, map[string]any, error) {
		return func(string) (string, string, map[string]any, error) { return "GET", "/api/admin/reconcile", nil, nil }
	}},
}

func adminUsage() string {
	var b strings.Builder
	b.WriteString("usage: shlyuz admin COMMAND [ARG] [flags]   (shlyuz admin COMMAND --help for its flags)\n")
	b.WriteString("  SHLYUZ_URL: the gateway (default http://127.0.0.1:8080); SHLYUZ_ADMIN_TOKEN: its operator token\n")
	for _, c := range adminCommands {
		fmt.Fprintf(&b, "  %-15s %-11s %s\n", c.name, c.arg, c.summary)
	}
	return strings.TrimRight(b.String(), "\n")
}

// admin is a thin client of the operator API: it sends one request and prints the answer.
func admin(args []string, out io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(out, adminUsage())
		return nil
	}
	var cmd *adminCommand
	for i := range adminCommands {
		if adminCommands[i].name == args[0] {
			cmd = &adminCommands[i]
		}
	}
	if cmd == nil {
		return fmt.Errorf("admin: unknown command %q (shlyuz admin --help lists them)", args[0])
	}
	fs := flag.NewFlagSet("shlyuz admin "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(out, "usage: shlyuz admin %s %s [flags]: %s\n", cmd.name, cmd.arg, cmd.summary)
		fs.PrintDefaults()
	}
	build := cmd.flags(fs)
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return err
	}
	want := 0
	if cmd.arg != "" {
		want = 1
	}
	if len(pos) != want {
		return fmt.Errorf("admin %s takes %s", cmd.name, map[int]string{0: "no argument", 1: "one argument, " + cmd.arg}[want])
	}
	arg := ""
	if want == 1 {
		arg = pos[0]
	}
	method, path, body, err := build(arg)
	if err != nil {
		return fmt.Errorf("admin %s: %w", cmd.name, err)
	}
	return adminCall(method, path, body, out)
}

// parseInterspersed parses flags that come before or after the positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// wholeCredits parses a flag's whole, non-negative number of credits.
func wholeCredits(flagName, v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: %q is not a whole number of credits (1 ruble = 100000 credits)", flagName, v)
	}
	return n, nil
}

// adminTimeout bounds one call of the operator API.
const adminTimeout = 30 * time.Second

func adminCall(method, path string, body map[string]any, out io.Writer) error {
	token := os.Getenv("SHLYUZ_ADMIN_TOKEN")
	if token == "" {
		return errors.New("set SHLYUZ_ADMIN_TOKEN to the gateway's admin token")
	}
	base := strings.TrimSuffix(envOr("SHLYUZ_URL", "http://127.0.0.1:8080"), "/")
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return fmt.Errorf("SHLYUZ_URL %q: %v", base, err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: adminTimeout}).Do(req)
	if err != nil {
		return fmt.Errorf("the gateway at %s is unreachable (is it running? SHLYUZ_URL names it): %v", base, err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, reply, "", "  ") == nil {
		reply = pretty.Bytes()
	}
	fmt.Fprintln(out, string(reply))
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	return nil
}
