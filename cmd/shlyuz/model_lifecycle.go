package main

import (
	"errors"
	"fmt"

	shlyuz "github.com/shlyuz/shlyuz"
)

// lifecycleOverride is one entry of the config's lifecycle list: a model's
// deprecation date, retirement (expiration) date, successor and whether the
// successor serves it once retired, set without restating the model. Fields
// left empty keep the catalog's. The model "*" sets serve_successor on every
// model that has a successor (its other fields must be empty).
type lifecycleOverride struct {
	Model            string `yaml:"model"`
	shlyuz.Lifecycle `yaml:",inline"`
}

// applyLifecycle applies the overrides to models in order, checking each
// model's resulting lifecycle and that its successor is in the catalog.
func applyLifecycle(models []shlyuz.Model, overrides []lifecycleOverride) error {
	idx := make(map[string]int, len(models))
	for i, m := range models {
		idx[m.ID] = i
	}
	for i, o := range overrides {
		at := fmt.Sprintf("lifecycle[%d]", i)
		if o.Model == "*" {
			if o.DeprecationDate != "" || o.ExpirationDate != "" || o.Successor != "" {
				return bad(at, errors.New(`the model "*" may only set serve_successor`))
			}
			for j := range models {
				if models[j].Successor != "" {
					models[j].ServeSuccessor = o.ServeSuccessor
				}
			}
			continue
		}
		j, ok := idx[o.Model]
		if !ok {
			return bad(at+".model", fmt.Errorf("%q is not a model of the catalog", o.Model))
		}
		l := &models[j].Lifecycle
		if o.DeprecationDate != "" {
			l.DeprecationDate = o.DeprecationDate
		}
		if o.ExpirationDate != "" {
			l.ExpirationDate = o.ExpirationDate
		}
		if o.Successor != "" {
			l.Successor = o.Successor
		}
		if o.ServeSuccessor {
			l.ServeSuccessor = true
		}
		if err := shlyuz.CheckLifecycle(o.Model, *l); err != nil {
			return bad(at, err)
		}
	}
	for _, m := range models {
		if m.Successor == "" {
			continue
		}
		if _, ok := idx[m.Successor]; !ok {
			return bad("lifecycle", fmt.Errorf("the successor %q of %q is not a model of the catalog", m.Successor, m.ID))
		}
	}
	return nil
}
