package gemini

import (
	"encoding/json"

	"github.com/shlyuz/shlyuz"
)

// The Gemini API's JSON, as far as the adapter writes or reads it (camelCase
// on the wire, as Google's SDKs send it).

// wireRequest is a generateContent body.
type wireRequest struct {
	Contents          []content         `json:"contents"`
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	Tools             []tool            `json:"tools,omitempty"`
	ToolConfig        *toolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
}

type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

// part is one part of a content; exactly one of its data fields is set.
type part struct {
	Text             string            `json:"text,omitempty"`
	InlineData       *blob             `json:"inlineData,omitempty"`
	FileData         *fileData         `json:"fileData,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
}

type blob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"` // base64
}

type fileData struct {
	MimeType string `json:"mimeType,omitempty"`
	FileURI  string `json:"fileUri"`
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"` // an object
}

type functionResponse struct {
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"` // must be an object
}

type tool struct {
	FunctionDeclarations []functionDeclaration `json:"functionDeclarations"`
}

type functionDeclaration struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters takes Gemini's own Schema (an OpenAPI subset); a JSON
	// Schema that uses more than that subset goes in ParametersJSONSchema
	// instead (the two are mutually exclusive).
	Parameters           json.RawMessage `json:"parameters,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

type toolConfig struct {
	FunctionCallingConfig functionCallingConfig `json:"functionCallingConfig"`
}

type functionCallingConfig struct {
	Mode                 string   `json:"mode"` // AUTO, ANY, NONE
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

// maxCandidates is the most candidates Gemini returns for one request.
const maxCandidates = 8

type generationConfig struct {
	MaxOutputTokens    int64           `json:"maxOutputTokens,omitempty"`
	CandidateCount     int64           `json:"candidateCount,omitempty"` // the client's n
	Temperature        *float64        `json:"temperature,omitempty"`
	TopP               *float64        `json:"topP,omitempty"`
	TopK               *int64          `json:"topK,omitempty"`
	StopSequences      []string        `json:"stopSequences,omitempty"`
	Seed               *int64          `json:"seed,omitempty"`
	PresencePenalty    *float64        `json:"presencePenalty,omitempty"`
	FrequencyPenalty   *float64        `json:"frequencyPenalty,omitempty"`
	ResponseMimeType   string          `json:"responseMimeType,omitempty"`
	ResponseJSONSchema json.RawMessage `json:"responseJsonSchema,omitempty"`
	ResponseModalities []string        `json:"responseModalities,omitempty"` // ["TEXT","IMAGE"]: image output
	ImageConfig        *imageConfig    `json:"imageConfig,omitempty"`
	SpeechConfig       *speechConfig   `json:"speechConfig,omitempty"` // responseModalities ["AUDIO"]: the voice
	ThinkingConfig     *thinkingConfig `json:"thinkingConfig,omitempty"`
}

// speechConfig names a TTS model's prebuilt voice.
type speechConfig struct {
	VoiceConfig struct {
		PrebuiltVoiceConfig struct {
			VoiceName string `json:"voiceName"`
		} `json:"prebuiltVoiceConfig"`
	} `json:"voiceConfig"`
}

// imageConfig is an image-output model's aspect ratio and size (OpenRouter's
// image_config).
type imageConfig struct {
	AspectRatio string `json:"aspectRatio,omitempty"`
	ImageSize   string `json:"imageSize,omitempty"`
}

func (g *generationConfig) empty() bool {
	return g.MaxOutputTokens == 0 && g.CandidateCount == 0 && g.Temperature == nil && g.TopP == nil && g.TopK == nil &&
		len(g.StopSequences) == 0 && g.Seed == nil && g.PresencePenalty == nil && g.FrequencyPenalty == nil &&
		g.ResponseMimeType == "" && len(g.ResponseJSONSchema) == 0 && len(g.ResponseModalities) == 0 && g.ImageConfig == nil && g.SpeechConfig == nil && g.ThinkingConfig == nil
}

// wireResponse is a GenerateContentResponse: a whole reply, or one chunk of a stream.
type wireResponse struct {
	Candidates     []candidate     `json:"candidates"`
	PromptFeedback *promptFeedback `json:"promptFeedback"`
	UsageMetadata  *usageMetadata  `json:"usageMetadata"`
	ModelVersion   string          `json:"modelVersion"`
	ResponseID     string          `json:"responseId"`
	Error          *wireError      `json:"error"` // an error object inside a stream
}

type candidate struct {
	Content       *content `json:"content"`
	FinishReason  string   `json:"finishReason"`
	FinishMessage string   `json:"finishMessage"`
	Index         int      `json:"index"`
	// GroundingMetadata: the model searched Google (grounding.go).
	GroundingMetadata *groundingMetadata `json:"groundingMetadata"`
}

type promptFeedback struct {
	BlockReason        string `json:"blockReason"`
	BlockReasonMessage string `json:"blockReasonMessage"`
}

type usageMetadata struct {
	PromptTokenCount        int64 `json:"promptTokenCount"`
	CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int64 `json:"thoughtsTokenCount"`
	ToolUsePromptTokenCount int64 `json:"toolUsePromptTokenCount"`
	CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
	TotalTokenCount         int64 `json:"totalTokenCount"`
	// The counts by modality (TEXT, IMAGE, AUDIO, VIDEO, DOCUMENT).
	PromptTokensDetails     []modalityCount `json:"promptTokensDetails"`
	CandidatesTokensDetails []modalityCount `json:"candidatesTokensDetails"`
}

type modalityCount struct {
	Modality   string `json:"modality"`
	TokenCount int64  `json:"tokenCount"`
}

// modality is the tokens of the modality in details.
func modality(details []modalityCount, m string) int64 {
	var n int64
	for _, d := range details {
		if d.Modality == m {
			n += d.TokenCount
		}
	}
	return n
}

// usage is the usage in OpenAI's terms: the prompt includes the cached part
// and the prompt of tool use; the completion includes the thinking, which
// candidatesTokenCount leaves out.
func (m *usageMetadata) usage() shlyuz.Usage {
	u := shlyuz.Usage{
		PromptTokens:          m.PromptTokenCount + m.ToolUsePromptTokenCount,
		CompletionTokens:      m.CandidatesTokenCount + m.ThoughtsTokenCount,
		CachedTokens:          m.CachedContentTokenCount,
		ReasoningTokens:       m.ThoughtsTokenCount,
		AudioPromptTokens:     modality(m.PromptTokensDetails, "AUDIO"),
		ImagePromptTokens:     modality(m.PromptTokensDetails, "IMAGE"),
		AudioCompletionTokens: modality(m.CandidatesTokensDetails, "AUDIO"),
		ImageCompletionTokens: modality(m.CandidatesTokensDetails, "IMAGE"),
	}
	return u.Normalized() // it fills TotalTokens
}

// finishReason maps Gemini's finish reason to OpenAI's; "" stays "" (not
// finished). A candidate that called a function finished with tool_calls,
// whatever Gemini says (it says STOP).
func finishReason(r string, calledTools bool) string {
	if r == "" {
		return ""
	}
	switch r {
	case "MAX_TOKENS":
		return "length"
	case "SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return "content_filter"
	}
	if calledTools {
		return "tool_calls"
	}
	return "stop" // STOP, and the rest (LANGUAGE, OTHER, MALFORMED_FUNCTION_CALL, …)
}
