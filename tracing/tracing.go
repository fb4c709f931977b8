// Package tracing turns on OpenTelemetry traces: an OTLP/HTTP exporter to
// the operator's collector, a parent-based ratio sampler and W3C trace
// context propagation. It is off unless configured; off, the global tracer
// provider stays OpenTelemetry's no-op one and the gateway starts no spans
// (http installs no middleware, actors checks for a recording parent first).
// Spans carry model ids, upstream names, token counts and credits: never a
// key, a prompt or a reply.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Config is the tracing section of the config.
type Config struct {
	// Endpoint is the collector's OTLP/HTTP traces URL, such as
	// http://otel-collector:4318/v1/traces; empty: tracing is off.
	Endpoint string `yaml:"endpoint"`
	// SampleRatio is the share of new traces recorded (0 to 1; default 1).
	// A request that arrives with a sampled traceparent is recorded whatever
	// the ratio, one that arrives unsampled is not.
	SampleRatio *float64 `yaml:"sample_ratio"`
	// Headers are sent with every export (a collector's auth token, say).
	Headers map[string]string `yaml:"headers"`
	// ServiceName is the resource's service.name (default shlyuz).
	ServiceName string `yaml:"service_name"`
	// BatchTimeout is the longest a finished span waits to be exported
	// (default 5s).
	BatchTimeout time.Duration `yaml:"batch_timeout"`
}

// Check reports a setting that cannot work.
func (c Config) Check() error {
	if c.Endpoint == "" {
		return nil
	}
	u, err := url.Parse(c.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("endpoint %q is not an http:// or https:// URL", c.Endpoint)
	}
	if r := c.SampleRatio; r != nil && (*r < 0 || *r > 1) {
		return fmt.Errorf("sample_ratio %v is not between 0 and 1", *r)
	}
	if c.BatchTimeout < 0 {
		return errors.New("batch_timeout is negative")
	}
	return nil
}

// Start installs the global tracer provider and propagator when an endpoint
// is configured. The returned func flushes and stops the exporter; on reports
// whether tracing is on.
func Start(c Config, version string) (stop func(context.Context) error, on bool, err error) {
	if c.Endpoint == "" {
		return func(context.Context) error { return nil }, false, nil
	}
	if err := c.Check(); err != nil {
		return nil, false, err
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(c.Endpoint)}
	if len(c.Headers) > 0 {
		opts = append(opts, otlptracehttp.WithHeaders(c.Headers))
	}
	exp, err := otlptracehttp.New(context.Background(), opts...)
	if err != nil {
		return nil, false, err
	}
	ratio := 1.0
	if c.SampleRatio != nil {
		ratio = *c.SampleRatio
	}
	name := c.ServiceName
	if name == "" {
		name = "shlyuz"
	}
	batch := c.BatchTimeout
	if batch == 0 {
		batch = 5 * time.Second
	}
	res := resource.NewSchemaless(attribute.String("service.name", name), attribute.String("service.version", version))
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(batch)),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))),
		sdktrace.WithResource(res),
	)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	return tp.Shutdown, true, nil
}
