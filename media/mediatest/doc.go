// Package mediatest makes real, synthetic media files for tests and fake
// upstreams: a playable MP4 of a given length, WAV, PCM, MP3 and Ogg Opus
// audio of a given duration.
package mediatest
