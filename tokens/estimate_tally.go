package tokens

// PromptTally adds up a messages array as a writer puts it together, one
// message and one text at a time, to what EstimatePrompt gives of the
// array written: the writer that has each text in hand (the Anthropic and
// Responses fast paths) need not walk its output again.
type PromptTally struct{ w promptWalk }

// Message counts one message (its fixed overhead).
func (t *PromptTally) Message() { t.w.overhead += 4 }

// Text counts one string of a message: a string content, a text part's
// text, or a tool message's tool_call_id (the fast paths count a tool
// result's call id with it): the string literal, quotes included, as the
// body holds it.
func (t *PromptTally) Text(lit []byte) { t.w.add(lit) }

// Call counts one tool call of an assistant message: its id, function name
// and arguments, each the string literal as written.
func (t *PromptTally) Call(id, name, arguments []byte) {
	t.w.add(id)
	t.w.add(name)
	t.w.add(arguments)
}

// Estimate is EstimatePrompt of the messages counted.
func (t *PromptTally) Estimate() PromptEstimate { return t.w.estimate() }
