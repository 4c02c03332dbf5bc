package main

import (
	"bytes"
	"flag"
	"fmt"
	"slices"
	"strings"
)

// kvCommand is trieroot kv: the root of KEY VALUE pairs.
type kvCommand struct {
	trieFlags
	sort, secure bool
}

func (c *kvCommand) flags(fs *flag.FlagSet) {
	c.define(fs, "a key as the input writes it")
	c.defineWorkers(fs)
	fs.BoolVar(&c.sort, "sort", false, "sort the pairs, which may then come in any order")
	fs.BoolVar(&c.secure, "secure", false, "hash each key with Keccak-256 first, as state and storage tries do; implies --sort")
}

func (c *kvCommand) run(e *env, path string) (*report, error) {
	out, in, err := c.open(e, path, c.trieKey)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	t := c.newTrie(out.onNode())
	defer t.Close()
	var pairs int
	if c.sort || c.secure {
		pairs, err = c.insertSorted(in, t)
	} else {
		pairs, err = insertInOrder(in, t)
	}
	if err != nil {
		out.discard()
		return nil, err
	}
	in.Close()
	root := t.Hash()
	r := &report{format: c.format(), quiet: root.String()}
	r.add("pairs", pairs)
	r.add("root", root.String())
	return r, out.close(r, root)
}

// trieKey is the trie key of a key as the input writes it.
func (c *kvCommand) trieKey(s string) ([]byte, error) {
	key, err := decodeHex(nil, s)
	if err != nil {
		return nil, err
	}
	if c.secure {
		h := keccak256(key)
		return h[:], nil
	}
	return key, nil
}

// insertInOrder inserts the pairs as they come, which must be in ascending
// key order, and returns their number.
func insertInOrder(in *input, t trie) (int, error) {
	var key, value, last []byte
	lastLine, n := 0, 0
	err := in.eachLine(isBlankOrComment, func(line []byte) error {
		var err error
		if key, value, err = parsePair(key[:0], value[:0], line); err != nil {
			return in.errorf("%v", err)
		}
		if err := t.Update(key, value); err != nil {
			if bytes.Equal(key, last) {
				return in.errorf("duplicate key %s, first on line %d", hex0x(key), lastLine)
			}
			return in.errorf("key %s is below %s on line %d: sort the input, or pass --sort", hex0x(key), hex0x(last), lastLine)
		}
		last, lastLine = append(last[:0], key...), in.line
		n++
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// linePair is a pair read from a line, kept for sorting.
type linePair struct {
	key, value []byte
	raw        []byte // the key as the input writes it
	line       int
}

// insertSorted reads every pair, hashing keys with --secure, sorts them and
// inserts them, and returns their number.
func (c *kvCommand) insertSorted(in *input, t trie) (int, error) {
	var pairs []linePair
	err := in.eachLine(isBlankOrComment, func(line []byte) error {
		key, value, err := parsePair(nil, nil, line)
		if err != nil {
			return in.errorf("%v", err)
		}
		p := linePair{key: key, value: value, raw: key, line: in.line}
		if c.secure {
			h := keccak256(key)
			p.key = h[:]
		}
		pairs = append(pairs, p)
		return nil
	})
	if err != nil {
		return 0, err
	}
	// Stable, so that of equal keys the first in the input comes first.
	slices.SortStableFunc(pairs, func(a, b linePair) int { return bytes.Compare(a.key, b.key) })
	for i, p := range pairs {
		if i > 0 && bytes.Equal(p.key, pairs[i-1].key) {
			return 0, in.errorAt(p.line, "duplicate key %s, first on line %d", hex0x(p.raw), pairs[i-1].line)
		}
		if err := t.Update(p.key, p.value); err != nil {
			return 0, in.errorAt(p.line, "%v", err) // cannot happen: keys ascend, values are not empty
		}
	}
	return len(pairs), nil
}

// parsePair decodes a "KEY VALUE" line into key and value, appending to
// the buffers given.
func parsePair(key, value, line []byte) ([]byte, []byte, error) {
	fields := strings.Fields(string(line))
	switch {
	case len(fields) == 1:
		return nil, nil, fmt.Errorf("key %s has no value: want KEY VALUE", abbreviate(fields[0]))
	case len(fields) > 2:
		return nil, nil, fmt.Errorf("%d fields, want KEY VALUE", len(fields))
	}
	key, err := decodeHex(key, fields[0])
	if err != nil {
		return nil, nil, fmt.Errorf("key %w", err)
	}
	value, err = decodeHex(value, fields[1])
	if err != nil {
		return nil, nil, fmt.Errorf("value %w", err)
	}
	if len(value) == 0 {
		return nil, nil, fmt.Errorf("key %s has an empty value, which a trie cannot hold", hex0x(key))
	}
	return key, value, nil
}
