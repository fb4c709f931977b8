// Package shlyuz holds the domain of the Shlyuz gateway: credits and prices,
// accounts and their balances, API keys and their periods, models, usage,
// the error kinds, and the interfaces the rest of the project implements
// (Store, Provider). It depends on the standard library only.
package shlyuz
