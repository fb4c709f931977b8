package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
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
	// CallbackSecretEnv names the variable holding the secret that signs
	// callbacks; unset: jobs may not ask for a callback_url.
	CallbackSecretEnv string `yaml:"callback_secret_env"`
	// S3, when its bucket is set, keeps the files in S3-compatible object
	// storage instead of Dir (a cluster's nodes share it).
	S3 struct {
		Endpoint     string `yaml:"endpoint"` // host[:port]
		Bucket       string `yaml:"bucket"`
		Region       string `yaml:"region"`
		Prefix       string `yaml:"prefix"`
		Insecure     bool   `yaml:"insecure"` // plain http
		AccessKeyEnv string `yaml:"access_key_env"`
		SecretKeyEnv string `yaml:"secret_key_env"`
	} `yaml:"s3"`
}

// videoOptions builds the gateway's video options from the config.
func videoOptions(ctx context.Context, cfg *Config, db string) (actors.VideoOptions, error) {
	v := cfg.Video
	opts := actors.VideoOptions{PollMin: v.PollMin, PollMax: v.PollMax, Timeout: v.Timeout, Retention: v.Retention}
	if v.CallbackSecretEnv != "" {
		if opts.CallbackSecret = os.Getenv(v.CallbackSecretEnv); opts.CallbackSecret == "" {
			return opts, bad("video.callback_secret_env", fmt.Errorf("the variable %s is empty", v.CallbackSecretEnv))
		}
	}
	if s3 := v.S3; s3.Bucket != "" {
		blobs, err := blob.NewS3(ctx, blob.S3Config{Endpoint: s3.Endpoint, Bucket: s3.Bucket, Region: s3.Region, Prefix: s3.Prefix,
			Insecure: s3.Insecure, AccessKey: os.Getenv(s3.AccessKeyEnv), SecretKey: os.Getenv(s3.SecretKeyEnv)})
		if err != nil {
			return opts, bad("video.s3", err)
		}
		opts.Blobs = blobs
		return opts, nil
	}
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
		return opts, bad("video.dir", err)
	}
	opts.Blobs = blobs
	return opts, nil
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

// demoVideoModel is served by the demo upstream's OpenAI videos API (a real
// tiny MP4), so the video flow can be tried without a provider account.
func demoVideoModel() shlyuz.Model {
	return shlyuz.Model{ID: "demo/video", Name: "Demo: Video", InputModalities: []string{"text", "image"},
		OutputModalities: []string{"video"}, Created: 1767225600,
		Video: &shlyuz.VideoSpec{Durations: []int{4, 8, 12}, DefaultSeconds: 4, Sizes: []string{"720x1280", "1280x720"},
			DefaultSize: "720x1280", Resolutions: []string{"720p"}, AspectRatios: []string{"16:9", "9:16"},
			USDPerSecond: shlyuz.MustDecimal("0.001")}}
}
