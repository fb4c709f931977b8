//go:build race

package http

// raceEnabled: the race detector's shadow memory inflates RSS.
const raceEnabled = true
