package jsonscan

// Object walks the members of an object, one Next at a time.
type Object struct{ cursor }

// Array walks the elements of an array, one Next at a time.
type Array struct{ cursor }

// cursor is what Object and Array share: the position after the last item
// read, and how the values are read.
type cursor struct {
	b     []byte
	i     int
	first bool
	depth int // 0: values are skipped (SkipValue); above 0: validated (ValidValue) at this nesting
	err   error
}

// Members starts a walk of the object that opens at b[start], after spaces;
// ok is false when no object opens there.
func Members(b []byte, start int) (it Object, ok bool) {
	c, ok := open(b, start, '{')
	return Object{c}, ok
}

// ValidMembers is Members that validates every key and value as ValidValue
// does; depth is the object's own nesting (1 for a whole document), and an
// object deeper than MaxDepth is refused (ok false).
func ValidMembers(b []byte, start, depth int) (it Object, ok bool) {
	c, ok := openValid(b, start, '{', depth)
	return Object{c}, ok
}

// Elements starts a walk of the array that opens at b[start], after spaces;
// ok is false when no array opens there.
func Elements(b []byte, start int) (it Array, ok bool) {
	c, ok := open(b, start, '[')
	return Array{c}, ok
}

// ValidElements is Elements that validates every element as ValidValue does,
// with depth as in ValidMembers.
func ValidElements(b []byte, start, depth int) (it Array, ok bool) {
	c, ok := openValid(b, start, '[', depth)
	return Array{c}, ok
}

func open(b []byte, start int, bracket byte) (cursor, bool) {
	start = SkipSpace(b, start)
	if start >= len(b) || b[start] != bracket {
		return cursor{err: ErrMalformed}, false
	}
	return cursor{b: b, i: start + 1, first: true}, true
}

func openValid(b []byte, start int, bracket byte, depth int) (cursor, bool) {
	c, ok := open(b, start, bracket)
	if !ok || depth > MaxDepth {
		return cursor{err: ErrMalformed}, false
	}
	c.depth = depth + 1
	return c, true
}

// Next returns the raw key (inside its quotes, not unescaped), the offset of
// the key's opening quote and the span of the value; ok is false at the end
// of the object or on an error (Err).
func (it *Object) Next() (key []byte, keyStart, vs, ve int, ok bool) {
	key, keyStart, vs, ok = it.member()
	if !ok {
		return nil, 0, 0, 0, false
	}
	if ve, ok = it.value(vs); !ok {
		return nil, 0, 0, 0, false
	}
	return key, keyStart, vs, ve, true
}

// NextKey is Next for a caller that reads the value itself, as
// Array.NextStart: it returns the raw key and where the value starts (after
// spaces; it may be len of the input), and the caller tells where the value
// ended (SetEnd) before the next call. It does not validate the value,
// whatever the walk's strictness.
func (it *Object) NextKey() (key []byte, vs int, ok bool) {
	key, _, vs, ok = it.member()
	return key, vs, ok
}

// SetEnd moves the walk past the value NextKey returned, to ve.
func (it *Object) SetEnd(ve int) { it.i = ve }

// member reads the next member's key and colon: the raw key, the offset of
// its opening quote and where the value starts.
func (it *Object) member() (key []byte, keyStart, vs int, ok bool) {
	i, ok := it.item('}')
	if !ok {
		return nil, 0, 0, false
	}
	b := it.b
	if i >= len(b) || b[i] != '"' {
		it.err = ErrMalformed
		return nil, 0, 0, false
	}
	var ke int
	var err error
	if it.depth > 0 {
		ke, err = validString(b, i)
	} else {
		ke, err = SkipString(b, i)
	}
	if err != nil {
		it.err = err
		return nil, 0, 0, false
	}
	j := SkipSpace(b, ke)
	if j >= len(b) || b[j] != ':' {
		it.err = ErrMalformed
		return nil, 0, 0, false
	}
	return b[i+1 : ke-1], i, SkipSpace(b, j+1), true
}

// Next returns the span of the next element; ok is false at the end of the
// array or on an error (Err).
func (it *Array) Next() (vs, ve int, ok bool) {
	vs, ok = it.item(']')
	if !ok {
		return 0, 0, false
	}
	if ve, ok = it.value(vs); !ok {
		return 0, 0, false
	}
	return vs, ve, true
}

// NextStart is Next for a caller that reads the element itself: it returns
// where the element starts, and the caller tells where it ended (SetEnd)
// before the next call, so the element is read once. It does not validate
// the element, whatever the walk's strictness.
func (it *Array) NextStart() (vs int, ok bool) { return it.item(']') }

// SetEnd moves the walk past the element NextStart returned, to ve.
func (it *Array) SetEnd(ve int) { it.i = ve }

// End is the offset just past the closing bracket, once Next returned false
// and Err is nil.
func (c *cursor) End() int { return c.i }

// Err is the error that stopped the walk, or nil at its regular end.
func (c *cursor) Err() error { return c.err }

// item returns where the next item starts, past the comma that separates it
// from the last one; more is false at the closing bracket (End is then past
// it) or on an error.
func (c *cursor) item(closing byte) (i int, more bool) {
	b := c.b
	i = SkipSpace(b, c.i)
	if i >= len(b) {
		c.err = ErrMalformed
		return 0, false
	}
	if b[i] == closing {
		c.i = i + 1
		return 0, false
	}
	if !c.first {
		if b[i] != ',' {
			c.err = ErrMalformed
			return 0, false
		}
		i = SkipSpace(b, i+1)
	}
	c.first = false
	return i, true
}

// value reads the value at b[i] and moves past it.
func (c *cursor) value(i int) (end int, ok bool) {
	var err error
	if c.depth > 0 {
		end, err = ValidValue(c.b, i, c.depth)
	} else {
		end, err = SkipValue(c.b, i)
	}
	if err != nil {
		c.err = err
		return 0, false
	}
	c.i = end
	return end, true
}

// finish is End and Err as one result, for ValidValue.
func (c *cursor) finish() (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	return c.i, nil
}
