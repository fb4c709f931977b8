package yandex_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
)

// These tests speak the native API to the fake directly, to pin down the
// shapes the adapter is tested against.

func postNative(t *testing.T, u *upstream, path, body string, header map[string]string) *http.Response {
	t.Helper()
	return adaptertest.Post(t, u.TS.URL+path, body, map[string]string{"Content-Type": "application/json"}, header)
}

var nativeHeader = map[string]string{"Authorization": "Api-Key " + apiKey, "x-folder-id": folder}

const nativePath = "/foundationModels/v1/completion"

// nativeError reads a grpc-gateway error body.
func nativeError(t *testing.T, resp *http.Response, status, grpc int) string {
	t.Helper()
	var body struct {
		Error *struct {
			GRPCCode   int    `json:"grpcCode"`
			HTTPCode   int    `json:"httpCode"`
			Message    string `json:"message"`
			HTTPStatus string `json:"httpStatus"`
		} `json:"error"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &body); err != nil || body.Error == nil {
		t.Fatalf("not a native error body: %s", raw)
	}
	e := body.Error
	if resp.StatusCode != status || e.HTTPCode != status || e.GRPCCode != grpc || e.HTTPStatus != http.StatusText(status) || e.Message == "" {
		t.Errorf("HTTP %d, error %+v; want %d grpc %d", resp.StatusCode, e, status, grpc)
	}
	return e.Message
}

func TestFakeNativeRefusals(t *testing.T) {
	u := startFake(t, fake.Options{APIKey: apiKey})
	good := `{"modelUri":"gpt://` + folder + `/yandexgpt/latest","completionOptions":{"stream":false,"maxTokens":"10"},"messages":[{"role":"user","text":"hi"}]}`
	for _, tc := range []struct {
		name, path, body string
		header           map[string]string
		status, grpc     int
		msg              string
	}{
		{name: "no auth", path: nativePath, body: good, header: map[string]string{"x-folder-id": folder}, status: 401, grpc: 16},
		{name: "wrong key", path: nativePath, body: good, header: map[string]string{"Authorization": "Api-Key AQVN-other-key-9999", "x-folder-id": folder}, status: 401, grpc: 16, msg: "Unknown api key"},
		{name: "other folder", path: nativePath, body: good, header: map[string]string{"Authorization": "Bearer " + apiKey, "x-folder-id": "b1gother"}, status: 400, grpc: 3, msg: "folder"},
		{name: "async path", path: nativePath + "Async", body: good, header: nativeHeader, status: 404, grpc: 5},
		{name: "bad uri", path: nativePath, body: strings.Replace(good, "gpt://"+folder+"/yandexgpt/latest", "yandexgpt", 1), header: nativeHeader, status: 400, grpc: 3, msg: "model_uri"},
		{name: "numeric maxTokens", path: nativePath, body: strings.Replace(good, `"10"`, `10`, 1), header: nativeHeader, status: 400, grpc: 3, msg: "max_tokens"},
		{name: "content not text", path: nativePath, body: strings.Replace(good, `"text":"hi"`, `"content":"hi"`, 1), header: nativeHeader, status: 400, grpc: 3, msg: "exactly one"},
		{name: "tool role", path: nativePath, body: strings.Replace(good, `"role":"user"`, `"role":"tool"`, 1), header: nativeHeader, status: 400, grpc: 3, msg: "role"},
		{name: "string arguments", path: nativePath, body: strings.Replace(good, `{"role":"user","text":"hi"}`, `{"role":"assistant","toolCallList":{"toolCalls":[{"functionCall":{"name":"f","arguments":"{}"}}]}}`, 1), header: nativeHeader, status: 400, grpc: 3, msg: "object arguments"},
		{name: "temperature", path: nativePath, body: strings.Replace(good, `"stream":false`, `"stream":false,"temperature":1.2`, 1), header: nativeHeader, status: 400, grpc: 3, msg: "temperature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := nativeError(t, postNative(t, u, tc.path, tc.body, tc.header), tc.status, tc.grpc)
			if !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q does not mention %q", msg, tc.msg)
			}
		})
	}
	resp := postNative(t, u, nativePath, good, nativeHeader)
	if resp.StatusCode != 200 {
		t.Errorf("the good request got HTTP %d", resp.StatusCode)
	}
}

func TestFakeNativeStream(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 3})
	body := `{"modelUri":"gpt://` + folder + `/yandexgpt/latest","completionOptions":{"stream":true},"messages":[{"role":"user","text":"Hello there, how are you?"}]}`
	resp := postNative(t, u, nativePath, body, nativeHeader)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("HTTP %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	want := []string{
		`{"result":{"alternatives":[{"message":{"role":"assistant","text":"tok0"},"status":"ALTERNATIVE_STATUS_PARTIAL"}],"usage":{"inputTextTokens":"6","completionTokens":"1","totalTokens":"7","completionTokensDetails":{"reasoningTokens":"0"}},"modelVersion":"fake"}}`,
		`{"result":{"alternatives":[{"message":{"role":"assistant","text":"tok0 tok1"},"status":"ALTERNATIVE_STATUS_PARTIAL"}],"usage":{"inputTextTokens":"6","completionTokens":"2","totalTokens":"8","completionTokensDetails":{"reasoningTokens":"0"}},"modelVersion":"fake"}}`,
		`{"result":{"alternatives":[{"message":{"role":"assistant","text":"tok0 tok1 tok2"},"status":"ALTERNATIVE_STATUS_PARTIAL"}],"usage":{"inputTextTokens":"6","completionTokens":"3","totalTokens":"9","completionTokensDetails":{"reasoningTokens":"0"}},"modelVersion":"fake"}}`,
		`{"result":{"alternatives":[{"message":{"role":"assistant","text":"tok0 tok1 tok2"},"status":"ALTERNATIVE_STATUS_FINAL"}],"usage":{"inputTextTokens":"6","completionTokens":"3","totalTokens":"9","completionTokensDetails":{"reasoningTokens":"0"}},"modelVersion":"fake"}}`,
	}
	var got []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		got = append(got, sc.Text())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stream:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A mid-stream error is a native error object on its own line.
	resp = postNative(t, u, nativePath, strings.Replace(body, "yandexgpt", "fault-midstream-error", 1), nativeHeader)
	raw, _ := io.ReadAll(resp.Body)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if last := lines[len(lines)-1]; len(lines) != 2 || !strings.HasPrefix(last, `{"error":{"grpcCode":13,"httpCode":500,`) {
		t.Errorf("midstream-error stream:\n%s", raw)
	}
}

func TestFakeNativeToolCall(t *testing.T) {
	u := startFake(t, fake.Options{})
	body := `{"modelUri":"gpt://` + folder + `/yandexgpt/latest","completionOptions":{"stream":false},"messages":[{"role":"user","text":"Weather?"}],"tools":[{"function":{"name":"get_weather","parameters":{"type":"object"}}}]}`
	raw, _ := io.ReadAll(postNative(t, u, nativePath, body, nativeHeader).Body)
	want := `{"result":{"alternatives":[{"message":{"role":"assistant","toolCallList":{"toolCalls":[{"functionCall":{"name":"get_weather","arguments":{"city":"Moscow"}}}]}},"status":"ALTERNATIVE_STATUS_TOOL_CALLS"}],"usage":{"inputTextTokens":"2","completionTokens":"5","totalTokens":"7","completionTokensDetails":{"reasoningTokens":"0"}},"modelVersion":"fake"}}`
	if strings.TrimSpace(string(raw)) != want {
		t.Errorf("reply:\n%s\nwant:\n%s", raw, want)
	}
	// The tool's result, last, gets a text answer.
	body = strings.Replace(body, `{"role":"user","text":"Weather?"}`, `{"role":"user","text":"Weather?"},{"role":"assistant","toolCallList":{"toolCalls":[{"functionCall":{"name":"get_weather","arguments":{"city":"Moscow"}}}]}},{"role":"user","toolResultList":{"toolResults":[{"functionResult":{"name":"get_weather","content":"-5"}}]}}`, 1)
	raw, _ = io.ReadAll(postNative(t, u, nativePath, body, nativeHeader).Body)
	if !strings.Contains(string(raw), `"text":"tok0 tok1`) || !strings.Contains(string(raw), "ALTERNATIVE_STATUS_FINAL") {
		t.Errorf("follow-up reply: %s", raw)
	}
}
