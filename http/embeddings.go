package http

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"math"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

type embeddingOut struct {
	Object    string `json:"object"`
	Index     int    `json:"index"`
	Embedding any    `json:"embedding"` // []float32, or base64 of little-endian float32s
}

type embeddingsUsage struct {
	PromptTokens int64          `json:"prompt_tokens"`
	TotalTokens  int64          `json:"total_tokens"`
	Credits      shlyuz.Credits `json:"credits"`
}

// createEmbeddings is POST /api/v1/embeddings: OpenAI's shape, served by any
// upstream whose adapter is a shlyuz.Embedder, billed per input token at the
// model's prompt price (the upstream's count, or the gateway's when it gives
// none), with usage.credits the exact debit.
func (s *Server) createEmbeddings(c *fiber.Ctx) error {
	in, texts, tokens, reserve, perr := parseEmbeddings(c.Body())
	if perr != nil {
		return perr
	}
	m, merr := s.gw.Catalog().Lookup(in.Model)
	if merr != nil {
		return merr
	}
	if !m.MakesEmbeddings() {
		return shlyuz.ErrInvalidValue("model", "The model %q does not make embeddings; GET /api/v1/models?output_modalities=embeddings lists those that do.", in.Model)
	}
	call := &actors.MediaCall{
		GenerationID: newID("gen-"), KeyHash: c.Locals(localKeyHash).(string), Model: m.ID, AllowFallbacks: true,
		Started: time.Now(), Worst: max(m.Price.Charge(reserve, 0), 1),
		Supports: func(u *actors.Upstream) bool { _, ok := u.Provider.(shlyuz.Embedder); return ok },
	}
	applyPrefs(call, in.Provider)
	c.Set("X-Generation-Id", call.GenerationID)
	announceDeprecation(c, m, s.gw.Catalog().Now)
	var result *shlyuz.EmbeddingResult
	media, err := s.gw.StartMedia(c.UserContext(), call, func(ctx context.Context, u *actors.Upstream, req *shlyuz.UpstreamRequest) error {
		ctx, cancel := context.WithTimeout(ctx, u.Config.Timeout)
		defer cancel()
		r := &shlyuz.EmbeddingRequest{Model: req.UpstreamModel, Texts: texts, Tokens: tokens, User: in.User}
		if in.Dimensions != nil {
			r.Dimensions = *in.Dimensions
		}
		var err error
		result, err = u.Provider.(shlyuz.Embedder).Embed(ctx, r)
		return err
	})
	if err != nil {
		return err
	}
	if len(result.Vectors) != len(texts)+len(tokens) {
		// A vector short or over: the client's indexes would not match its
		// inputs. The upstream's fault, at no cost to the client.
		e := shlyuz.ErrUpstream("The upstream returned %d embeddings for %d inputs.", len(result.Vectors), len(texts)+len(tokens))
		media.Fail(e)
		return e
	}
	used := result.PromptTokens
	if used <= 0 {
		used = reserve // the upstream did not count: the gateway's count, an upper bound
	}
	receipt := media.Settle(m.Price.Charge(used, 0), shlyuz.Usage{PromptTokens: used, TotalTokens: used}, shlyuz.GenerationCompleted, "stop")
	if receipt.Err != nil {
		return receipt.Err
	}
	data := make([]embeddingOut, len(result.Vectors))
	for i, v := range result.Vectors {
		data[i] = embeddingOut{Object: "embedding", Index: i, Embedding: v}
		if in.EncodingFormat == "base64" {
			data[i].Embedding = base64Floats(v)
		}
	}
	return c.JSON(fiber.Map{"object": "list", "data": data, "model": m.ID,
		"usage": embeddingsUsage{PromptTokens: used, TotalTokens: used, Credits: receipt.Credits}})
}

// base64Floats is OpenAI's base64 encoding of a vector: little-endian float32s.
func base64Floats(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return base64.StdEncoding.EncodeToString(b)
}
