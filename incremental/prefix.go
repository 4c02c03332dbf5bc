package incremental

// This file lets one table hold the tries of many owners, as a node's
// database holds the storage tries of every account: keys of one owner
// start with the owner's prefix (go-ethereum's path scheme keys a storage
// trie's nodes by the account's hashed address), and a PrefixCursor and a
// PrefixStore give Build and Root that owner's entries alone, without the
// prefix.

import "bytes"

// A PrefixCursor is a Cursor over the entries of another whose keys start
// with a prefix, with the prefix cut off: one owner's leaves or stored
// branches in a table that holds many owners'. The zero value is empty;
// Reset points it at a cursor and a prefix, and a PrefixCursor reset for
// each owner in turn allocates nothing once its buffer has grown.
type PrefixCursor struct {
	cursor Cursor
	prefix []byte
	target []byte // the prefix, then the key sought
}

// Reset makes p the view of c's entries under prefix, which it copies.
func (p *PrefixCursor) Reset(c Cursor, prefix []byte) {
	p.cursor = c
	p.prefix = append(p.prefix[:0], prefix...)
}

// Seek returns the first entry under the prefix whose key, without the
// prefix, is >= key; ok is false if there is none.
func (p *PrefixCursor) Seek(key []byte) (k, v []byte, ok bool) {
	if p.cursor == nil {
		return nil, nil, false
	}
	p.target = append(append(p.target[:0], p.prefix...), key...)
	return p.cut(p.cursor.Seek(p.target))
}

// Next returns the entry after the last one returned, if it is under the
// prefix.
func (p *PrefixCursor) Next() (k, v []byte, ok bool) {
	if p.cursor == nil {
		return nil, nil, false
	}
	return p.cut(p.cursor.Next())
}

func (p *PrefixCursor) cut(k, v []byte, ok bool) ([]byte, []byte, bool) {
	if !ok || !bytes.HasPrefix(k, p.prefix) {
		return nil, nil, false
	}
	return k[len(p.prefix):], v, true
}

// A PrefixStore passes what Build or Root stores to another store function
// with a prefix before each path: one owner's records into a table that
// holds many owners'. Reset it for each owner before use; its Write
// method is the store function, and it allocates nothing once its buffer
// has grown.
type PrefixStore struct {
	store  func(path, branch []byte)
	prefix []byte
	key    []byte // the prefix, then the path being stored
}

// Reset makes s write through store under prefix, which it copies.
func (s *PrefixStore) Reset(store func(path, branch []byte), prefix []byte) {
	s.store = store
	s.prefix = append(s.prefix[:0], prefix...)
}

// Write stores branch at the prefix and path; a nil branch deletes it. The
// key it passes on is valid for the call only.
func (s *PrefixStore) Write(path, branch []byte) {
	s.key = append(append(s.key[:0], s.prefix...), path...)
	s.store(s.key, branch)
}
