package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"strconv"

	"github.com/stacktrie/stacktrie"
	"github.com/stacktrie/stacktrie/derivesha"
)

// listCommand is trieroot list: the DeriveSha root of encoded items.
type listCommand struct {
	trieFlags
}

func (c *listCommand) flags(fs *flag.FlagSet) {
	c.define(fs, "an item's index, from 0")
}

func (c *listCommand) run(e *env, path string) (*report, error) {
	out, in, err := c.open(e, path, indexKey)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	s := derivesha.NewStream(stacktrie.New(out.onNode()))
	if err := appendItems(in, s); err != nil {
		out.discard()
		return nil, err
	}
	in.Close()
	root := s.Hash()
	r := &report{format: c.format(), quiet: root.String()}
	r.add("items", s.Len())
	r.add("root", root.String())
	return r, out.close(r, root)
}

// appendItems appends the items of the input's lines to s.
func appendItems(in *input, s *derivesha.Stream) error {
	var item []byte
	return in.eachLine(isBlankOrComment, func(line []byte) error {
		var err error
		line = bytes.TrimSpace(line)
		if bytes.ContainsAny(line, " \t") {
			return in.errorf("more than one item on the line")
		}
		if item, err = decodeHex(item[:0], string(line)); err != nil {
			return in.errorf("item %v", err)
		}
		// An empty item counts but stays out of the trie, as in DeriveSha;
		// Append fails only after Hash.
		s.Append(item)
		return nil
	})
}

// indexKey is the trie key of a list index, as DeriveSha keys the item.
func indexKey(s string) ([]byte, error) {
	i, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("not an index: want a decimal number from 0")
	}
	// derivesha.IndexKey takes an int and reads a negative one as the uint64
	// of the same bits, so every index round-trips where int has 64 bits;
	// where it has 32, those that do not fit are refused.
	if uint64(int(i)) != i {
		return nil, fmt.Errorf("not an index: %d is above %d, the largest an int holds here", i, math.MaxInt)
	}
	return derivesha.IndexKey(int(i)), nil
}
