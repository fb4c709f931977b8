// Package replyfuzz holds no code of its own: its test fuzzes what every
// provider adapter makes of an upstream's bytes (plain replies, error bodies
// and event streams), through the adapters' real HTTP path.
package replyfuzz
