package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

const adminUsage = `usage: shlyuz admin COMMAND [flags] ARGS   (SHLYUZ_URL, default http://127.0.0.1:8080; SHLYUZ_ADMIN_TOKEN)
  create-account EMAIL
  account ACCOUNT_ID
  topup ACCOUNT_ID (--rubles N | --credits N) --idempotency-key K
  grant-plan ACCOUNT_ID --plan ID --idempotency-key K
  create-key ACCOUNT_ID [--name N] [--limit CREDITS] [--limit-reset day|week|month] [--expires-at RFC3339]
  revoke-key KEY_ID
  set-pricing [--rate RUB_PER_USD] [--k K]
  set-plan ID --name N --price-rubles P --package-credits C --period day|week|month
  reconcile`

// admin is a thin client of the operator API: it sends one request and prints the answer.
func admin(args []string, out io.Writer) error {
	if len(args) == 0 || args[0] == "help" {
		fmt.Fprintln(out, adminUsage)
		return nil
	}
	cmd, args := args[0], args[1:]
	fs := flag.NewFlagSet("admin "+cmd, flag.ContinueOnError)
	rubles := fs.String("rubles", "", "rubles to add")
	credits := fs.String("credits", "", "credits to add")
	idem := fs.String("idempotency-key", "", "makes a retried top-up harmless")
	plan := fs.String("plan", "", "plan id")
	name := fs.String("name", "", "name")
	limit := fs.String("limit", "", "ceiling in credits")
	reset := fs.String("limit-reset", "", "day, week or month")
	expires := fs.String("expires-at", "", "RFC 3339 instant")
	rate := fs.String("rate", "", "rubles per US dollar")
	k := fs.String("k", "", "coefficient K")
	price := fs.String("price-rubles", "", "plan price in rubles")
	pkg := fs.String("package-credits", "", "credits in the plan's package")
	period := fs.String("period", "", "day, week or month")
	// flags may come before or after the positional argument
	var pos []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	arg := func() (string, error) {
		if len(pos) != 1 {
			return "", fmt.Errorf("admin %s takes one argument\n%s", cmd, adminUsage)
		}
		return pos[0], nil
	}
	body := map[string]any{}
	raw := func(key, v string) {
		if v != "" {
			body[key] = json.RawMessage(v)
		}
	}
	str := func(key, v string) {
		if v != "" {
			body[key] = v
		}
	}
	var method, path string
	switch cmd {
	case "create-account":
		email, err := arg()
		if err != nil {
			return err
		}
		method, path = "POST", "/api/admin/accounts"
		body["email"] = email
	case "account":
		id, err := arg()
		if err != nil {
			return err
		}
		method, path, body = "GET", "/api/admin/accounts/"+id, nil
	case "topup":
		id, err := arg()
		if err != nil {
			return err
		}
		method, path = "POST", "/api/admin/accounts/"+id+"/topups"
		str("rubles", *rubles)
		raw("credits", *credits)
		str("idempotency_key", *idem)
	case "grant-plan":
		id, err := arg()
		if err != nil {
			return err
		}
		method, path = "POST", "/api/admin/accounts/"+id+"/plans"
		str("plan_id", *plan)
		str("idempotency_key", *idem)
	case "create-key":
		id, err := arg()
		if err != nil {
			return err
		}
		method, path = "POST", "/api/admin/accounts/"+id+"/keys"
		str("name", *name)
		raw("limit", *limit)
		str("limit_reset", *reset)
		str("expires_at", *expires)
	case "revoke-key":
		id, err := arg()
		if err != nil {
			return err
		}
		method, path, body = "DELETE", "/api/admin/keys/"+id, nil
	case "set-pricing":
		method, path = "PUT", "/api/admin/pricing"
		str("rate", *rate)
		str("K", *k)
	case "set-plan":
		id, err := arg()
		if err != nil {
			return err
		}
		method, path = "PUT", "/api/admin/plans/"+id
		str("name", *name)
		str("price_rubles", *price)
		raw("package_credits", *pkg)
		str("period", *period)
	case "reconcile":
		method, path, body = "GET", "/api/admin/reconcile", nil
	default:
		return fmt.Errorf("unknown admin command %q\n%s", cmd, adminUsage)
	}
	return adminCall(method, path, body, out)
}

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
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
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
