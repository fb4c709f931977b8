package web

import (
	"encoding/csv"
	"net/url"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// The activity page's size and the chart's span.
const (
	activityPage = 50
	chartDays    = 30
	csvMax       = 100_000
)

type dayBar struct {
	Day     time.Time
	Credits shlyuz.Credits
	Percent int
}

type activityData struct {
	Rows       []activityRow
	Keys       []shlyuz.Key
	Models     []string
	Key, Model string
	User       string // the end user filtered by ("user" of the requests)
	Page       int
	Prev, Next string
	Bars       []dayBar
	Top, Half  shlyuz.Credits // the chart's axis: its top and middle
	Sum        shlyuz.Credits // the chart's total
	CSV        string
}

type activityRow struct {
	shlyuz.Generation
	KeyName string
}

func (w *Web) filter(c *fiber.Ctx) shlyuz.GenerationFilter {
	return shlyuz.GenerationFilter{AccountID: sessionOf(c).account.ID, KeyID: c.Query("key"), Model: c.Query("model"), User: c.Query("user")}
}

// keyNames names the account's keys; generations of the web chat have no key.
func keyNames(keys []shlyuz.Key, lang string) map[string]string {
	m := map[string]string{"": "—"}
	for i, k := range keys {
		if k.WebChat {
			keys[i].Name = tr(lang, "web_chat")
			k.Name = keys[i].Name
		}
		m[k.ID] = k.Name + " (" + k.Label + ")"
	}
	return m
}

// generationsOf reads the filtered generations and the account's keys, with
// the keys' names by id (keyNames) for the generations' rows.
func (w *Web) generationsOf(c *fiber.Ctx, f shlyuz.GenerationFilter) ([]shlyuz.Generation, []shlyuz.Key, map[string]string, error) {
	gens, err := w.store.Generations(w.ctx(c), f)
	if err != nil {
		return nil, nil, nil, err
	}
	keys, err := w.store.KeysOf(w.ctx(c), f.AccountID)
	if err != nil {
		return nil, nil, nil, err
	}
	return gens, keys, keyNames(keys, langOf(c)), nil
}

func (w *Web) activity(c *fiber.Ctx) error {
	f := w.filter(c)
	page := max(c.QueryInt("page", 1), 1)
	f.Limit, f.Offset = activityPage+1, (page-1)*activityPage
	gens, keys, names, err := w.generationsOf(c, f)
	if err != nil {
		return w.fail(c, err)
	}
	d := activityData{Keys: keys, Key: f.KeyID, Model: f.Model, User: f.User, Page: page}
	q := "&key=" + f.KeyID + "&model=" + f.Model
	if f.User != "" {
		q += "&user=" + url.QueryEscape(f.User)
	}
	if len(gens) > activityPage {
		gens = gens[:activityPage]
		d.Next = "?page=" + strconv.Itoa(page+1) + q
	}
	if page > 1 {
		d.Prev = "?page=" + strconv.Itoa(page-1) + q
	}
	d.CSV = "/account/activity.csv?" + q[1:]
	for _, g := range gens {
		d.Rows = append(d.Rows, activityRow{Generation: g, KeyName: names[g.KeyID]})
	}
	for _, m := range w.gw.Catalog().List() {
		d.Models = append(d.Models, m.ID)
	}
	if d.Bars, err = w.chart(c, f); err != nil {
		return w.fail(c, err)
	}
	for _, b := range d.Bars {
		d.Top, d.Sum = max(d.Top, b.Credits), d.Sum+b.Credits
	}
	d.Half = d.Top / 2
	return w.render(c, fiber.StatusOK, "activity", "activity", d, "", "")
}

// chart sums the credits of the filtered generations per day over the last chartDays.
func (w *Web) chart(c *fiber.Ctx, f shlyuz.GenerationFilter) ([]dayBar, error) {
	now := w.now().In(w.cfg.Location)
	start := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, w.cfg.Location).AddDate(0, 0, -(chartDays - 1))
	f.Since, f.Limit, f.Offset = start, csvMax, 0
	gens, err := w.store.Generations(w.ctx(c), f)
	if err != nil {
		return nil, err
	}
	sums := map[string]shlyuz.Credits{}
	for _, g := range gens {
		sums[g.CreatedAt.In(w.cfg.Location).Format("2006-01-02")] += g.Credits
	}
	var top shlyuz.Credits = 1
	for _, v := range sums {
		top = max(top, v)
	}
	bars := make([]dayBar, 0, chartDays)
	for d := start; !d.After(now); d = d.AddDate(0, 0, 1) {
		day := d.Format("2006-01-02")
		bars = append(bars, dayBar{Day: d, Credits: sums[day], Percent: int(sums[day] * 100 / top)})
	}
	return bars, nil
}

func (w *Web) activityCSV(c *fiber.Ctx) error {
	f := w.filter(c)
	f.Limit = csvMax
	gens, _, names, err := w.generationsOf(c, f)
	if err != nil {
		return w.fail(c, err)
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="activity.csv"`)
	cw := csv.NewWriter(c.Response().BodyWriter())
	// Moments in the area's zone (the offset says which), as on the pages.
	_ = cw.Write([]string{"id", "created_at", "key", "model", "tokens_prompt", "tokens_completion", "credits", "rubles", "status", "user"})
	for _, g := range gens {
		_ = cw.Write([]string{g.ID, g.CreatedAt.In(w.cfg.Location).Format(time.RFC3339), names[g.KeyID], g.Model,
			strconv.FormatInt(g.PromptTokens, 10), strconv.FormatInt(g.CompletionTokens, 10),
			strconv.FormatInt(g.Credits, 10), shlyuz.FormatRubles(g.Credits), g.Status, g.User})
	}
	cw.Flush()
	return cw.Error()
}
