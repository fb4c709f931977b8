package tokens

// textSavings is wordSavings of a text long enough to be worth it: a text
// shorter than wordsMin keeps its token a byte (a few hundred tokens held
// at most). A long text seen again is not looked at here: countText
// remembers its whole count (countCache).
func textSavings(body []byte) int64 {
	if len(body) < wordsMin {
		return 0
	}
	return wordSavings(body)
}

// wordsMin is the bytes of a text below which no words are looked for.
const wordsMin = 256
