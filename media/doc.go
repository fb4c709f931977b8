// Package media reads media containers: an MP4's tracks and duration, and
// the format and duration of WAV, MP3, Ogg and FLAC audio, to bill by what
// a file holds rather than by what a client or an upstream says.
package media
