// Package tokens estimates a prompt's tokens before the upstream counts
// them: an upper bound to reserve credits for (and a likely count to bill a
// stream cut before the upstream reported usage). It walks the messages,
// tallies text by the kind of its characters (64 bytes at a time, in amd64
// assembly where AVX2 is there, else in portable Go giving the same count),
// and bounds what an image costs. Reference tests hold the bound above real
// tokenizers.
package tokens
