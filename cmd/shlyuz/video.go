package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/persistence/blob"
)

// videoConfig is the config's video block.
type videoConfig struct {
	// Dir keeps finished files; default: beside the SQLite file
	// ("<db>.videos"), or ./shlyuz-videos with another database.
	Dir       string        `yaml:"dir"`
	PollMin   time.Duration `yaml:"poll_min"`  // default 2s
	PollMax   time.Duration `yaml:"poll_max"`  // default 30s
	Timeout   time.Duration `yaml:"timeout"`   // a job's time limit; default 1h
	Retention time.Duration `yaml:"retention"` // how long files are kept; default 7 days
	Sweep     time.Duration `yaml:"sweep"`     // how often expired files are removed; default 1m
}

// videoOptions builds the gateway's video options from the config.
func videoOptions(cfg *Config, db string) (actors.VideoOptions, error) {
	v := cfg.Video
	dir := v.Dir
	if dir == "" {
		if p, ok := strings.CutPrefix(db, "sqlite://"); ok {
			dir = filepath.Join(filepath.Dir(p), filepath.Base(p)+".videos")
		} else {
			dir = "shlyuz-videos"
		}
	}
	blobs, err := blob.NewLocal(dir)
	if err != nil {
		return actors.VideoOptions{}, bad("video.dir", err)
	}
	return actors.VideoOptions{Blobs: blobs, PollMin: v.PollMin, PollMax: v.PollMax, Timeout: v.Timeout, Retention: v.Retention}, nil
}

// startVideos resumes the unfinished jobs and runs the sweeper of expired files.
func (in *instance) startVideos(ctx context.Context, every time.Duration) error {
	if err := in.gw.ResumeVideos(ctx); err != nil {
		return fmt.Errorf("resume video jobs: %w", err)
	}
	if every <= 0 {
		every = time.Minute
	}
	sctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-sctx.Done():
				return
			case <-t.C:
				if _, err := in.gw.SweepVideos(sctx); err != nil && sctx.Err() == nil {
					in.log.Error("video files: sweep", "err", err)
				}
			}
		}
	}()
	in.cleanup = append(in.cleanup, func() { cancel(); <-done })
	return nil
}
