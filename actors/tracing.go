package actors

import (
	"context"

	shlyuz "github.com/shlyuz/shlyuz"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// A call's spans, children of the request's span that http starts when
// tracing is on: shlyuz.reserve, one "chat <model>" per upstream attempt
// (OpenTelemetry's GenAI conventions: gen_ai.operation.name,
// gen_ai.provider.name and the older gen_ai.system, gen_ai.request.model,
// gen_ai.response.model, gen_ai.usage.input_tokens/output_tokens),
// shlyuz.settle and shlyuz.commit. When the request's span is not recording
// (tracing off, or not sampled) a call starts none: one context lookup, no
// allocation. No attribute holds a key, a prompt or a reply; failures carry
// their error code, not their message (an upstream's message may quote input).

var tracer = otel.Tracer("github.com/shlyuz/shlyuz/actors")

// The attribute keys of the GenAI semantic conventions and ours.
const (
	attrOperation    = attribute.Key("gen_ai.operation.name")
	attrProvider     = attribute.Key("gen_ai.provider.name")
	attrSystem       = attribute.Key("gen_ai.system")
	attrRequestModel = attribute.Key("gen_ai.request.model")
	attrRespModel    = attribute.Key("gen_ai.response.model")
	attrInputTokens  = attribute.Key("gen_ai.usage.input_tokens")
	attrOutputTokens = attribute.Key("gen_ai.usage.output_tokens")
	attrFinish       = attribute.Key("gen_ai.response.finish_reasons")
	attrUpstream     = attribute.Key("shlyuz.upstream")
	attrModel        = attribute.Key("shlyuz.model")
	attrGeneration   = attribute.Key("shlyuz.generation_id")
	attrCredits      = attribute.Key("shlyuz.credits")
	attrHeld         = attribute.Key("shlyuz.credits_reserved")
	attrStatus       = attribute.Key("shlyuz.status")
	attrErrorType    = attribute.Key("error.type")
)

// traceFrom keeps ctx for the call's spans when its span is recording.
func (cl *call) traceFrom(ctx context.Context) {
	if trace.SpanFromContext(ctx).IsRecording() {
		cl.tctx = ctx
	}
}

// span starts a child of the request's span, or returns nil when the call is not traced.
func (cl *call) span(name string, kind trace.SpanKind) trace.Span {
	if cl.tctx == nil {
		return nil
	}
	_, s := tracer.Start(cl.tctx, name, trace.WithSpanKind(kind))
	return s
}

// endSpan ends s, marking it failed with err's code.
func endSpan(s trace.Span, err error) {
	if err != nil {
		code := shlyuz.AsError(err).Code
		s.SetAttributes(attrErrorType.String(code))
		s.SetStatus(codes.Error, code)
	}
	s.End()
}

// attemptSpan starts the span of one upstream attempt; nil when not traced.
func (cl *call) attemptSpan(u *Upstream, req *shlyuz.UpstreamRequest) (context.Context, trace.Span) {
	if cl.tctx == nil {
		return nil, nil
	}
	ctx, s := tracer.Start(cl.tctx, "chat "+req.UpstreamModel, trace.WithSpanKind(trace.SpanKindClient))
	s.SetAttributes(attrOperation.String("chat"), attrProvider.String(u.Config.Protocol), attrSystem.String(u.Config.Protocol),
		attrRequestModel.String(req.UpstreamModel), attrModel.String(req.Model), attrUpstream.String(u.Config.Name),
		attrGeneration.String(req.GenerationID))
	return ctx, s
}

// endAttempt ends the serving attempt's span with the usage it reported.
func (cl *call) endAttempt(u shlyuz.Usage, finish string) {
	s := cl.attempt
	if s == nil {
		return
	}
	cl.attempt = nil
	s.SetAttributes(attrInputTokens.Int64(u.PromptTokens), attrOutputTokens.Int64(u.CompletionTokens), attrRespModel.String(cl.model.ID))
	if finish != "" {
		s.SetAttributes(attrFinish.StringSlice([]string{finish}))
	}
	s.End()
}
