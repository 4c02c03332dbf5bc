package reftrie

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// op is one step of a test vector; an empty value deletes the key.
type op struct{ key, value string }

// vector is a case from the Ethereum test suite (TrieTests/trietest.json and
// trieanyorder.json). As there, strings starting with 0x are hex.
type vector struct {
	name string
	ops  []op
	root string
	// anyOrder marks trieanyorder.json cases, whose root does not depend on
	// the order of insertion.
	anyOrder bool
}

var vectors = []vector{
	{name: "singleItem", anyOrder: true,
		ops:  []op{{"A", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}},
		root: "0xd23786fb4a010da3ce639d66d5e904a11dbc02746d1ce25029e53290cabf28ab"},
	{name: "dogs", anyOrder: true,
		ops:  []op{{"doe", "reindeer"}, {"dog", "puppy"}, {"dogglesworth", "cat"}},
		root: "0x8aad789dff2f538bca5d8ea56e8abe10f4c7ba3a5dea95fea4cd6e7c3a1168d3"},
	{name: "puppy", anyOrder: true,
		ops:  []op{{"do", "verb"}, {"horse", "stallion"}, {"doge", "coin"}, {"dog", "puppy"}},
		root: "0x5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84"},
	{name: "foo", anyOrder: true,
		ops:  []op{{"foo", "bar"}, {"food", "bass"}},
		root: "0x17beaa1648bafa633cda809c90c04af50fc8aed3cb40d16efbddee6fdf63c4c3"},
	{name: "smallValues", anyOrder: true,
		ops:  []op{{"be", "e"}, {"dog", "puppy"}, {"bed", "d"}},
		root: "0x3f67c7a47520f79faa29255d2d3c084a7a6df0453116ed7232ff10277a8be68b"},
	{name: "testy", anyOrder: true,
		ops:  []op{{"test", "test"}, {"te", "testy"}},
		root: "0x8452568af70d8d140f58d941338542f645fcca50094b20f3c3d8c3df49337928"},
	{name: "hex", anyOrder: true,
		ops:  []op{{"0x0045", "0x0123456789"}, {"0x4500", "0x9876543210"}},
		root: "0x285505fcabe84badc8aa310e2aae17eddc7d120aabec8a476902c8184b3a3503"},
	{name: "emptyValues",
		ops: []op{{"do", "verb"}, {"ether", "wookiedoo"}, {"horse", "stallion"}, {"shaman", "horse"},
			{"doge", "coin"}, {"ether", ""}, {"dog", "puppy"}, {"shaman", ""}},
		root: "0x5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84"},
	{name: "branchingTests", ops: branchingOps(),
		root: "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"},
	{name: "jeff",
		ops: []op{
			{"0x0000000000000000000000000000000000000000000000000000000000000045", "0x22b224a1420a802ab51d326e29fa98e34c4f24ea"},
			{"0x0000000000000000000000000000000000000000000000000000000000000046", "0x67706c2076330000000000000000000000000000000000000000000000000000"},
			{"0x0000000000000000000000000000000000000000000000000000001234567890", "0x697c7b8c961b56f675d570498424ac8de1a918f6"},
			{"0x000000000000000000000000697c7b8c961b56f675d570498424ac8de1a918f6", "0x1234567890"},
			{"0x0000000000000000000000007ef9e639e2733cb34e4dfc576d4b23f72db776b2", "0x4655474156000000000000000000000000000000000000000000000000000000"},
			{"0x000000000000000000000000ec4f34c97e43fbb2816cfd95e388353c7181dab1", "0x4e616d6552656700000000000000000000000000000000000000000000000000"},
			{"0x4655474156000000000000000000000000000000000000000000000000000000", "0x7ef9e639e2733cb34e4dfc576d4b23f72db776b2"},
			{"0x4e616d6552656700000000000000000000000000000000000000000000000000", "0xec4f34c97e43fbb2816cfd95e388353c7181dab1"},
			{"0x0000000000000000000000000000000000000000000000000000001234567890", ""},
			{"0x000000000000000000000000697c7b8c961b56f675d570498424ac8de1a918f6", "0x6f6f6f6820736f2067726561742c207265616c6c6c793f000000000000000000"},
			{"0x6f6f6f6820736f2067726561742c207265616c6c6c793f000000000000000000", "0x697c7b8c961b56f675d570498424ac8de1a918f6"},
		},
		root: "0x9f6221ebb8efe7cff60a716ecb886e67dd042014be444669f0159d8e68b42100"},
	{name: "insert-middle-leaf",
		ops: []op{
			{"key1aa", "0123456789012345678901234567890123456789xxx"},
			{"key1", "0123456789012345678901234567890123456789Very_Long"},
			{"key2bb", "aval3"},
			{"key2", "short"},
			{"key3cc", "aval3"},
			{"key3", "1234567890123456789012345678901"},
		},
		root: "0xcb65032e2f76c48b82b5c24b3db8f670ce73982869d38cd39a624f23d62a9e89"},
	{name: "branch-value-update",
		ops:  []op{{"abc", "123"}, {"abcd", "abcd"}, {"abc", "abc"}},
		root: "0x7a320748f780ad9ad5b0837302075ce0eeba6c26e3d8562c67ccc0f1b273298a"},
}

// branchingOps is trietest.json's branchingTests: 25 addresses put, then all
// deleted again, leaving the empty trie.
func branchingOps() []op {
	addrs := strings.Fields(`
		04110d816c380812a427968ece99b1c963dfbce6 095e7baea6a6c7c4c2dfeb977efac326af552d87
		0a517d755cebbf66312b30fff713666a9cb917e0 24dd378f51adc67a50e339e8031fe9bd4aafab36
		293f982d000532a7861ab122bdc4bbfd26bf9030 2cf5732f017b0cf1b1f13a1478e10239716bf6b5
		31c640b92c21a1f1465c91070b4b3b4d6854195f 37f998764813b136ddf5a754f34063fd03065e36
		37fa399a749c121f8a15ce77e3d9f9bec8020d7a 4f36659fa632310b6ec438dea4085b522a2dd077
		62c01474f089b07dae603491675dc5b5748f7049 729af7294be595a0efd7d891c9e51f89c07950c7
		83e3e5a16d3b696a0314b30b2534804dd5e11197 8703df2417e0d7c59d063caa9583cb10a4d20532
		8dffcd74e5b5923512916c6a64b502689cfa65e1 95a4d7cccb5204733874fa87285a176fe1e9e240
		99b2fcba8120bedd048fe79f5262a6690ed38c39 a4202b8b8afd5354e3e40a219bdc17f6001bf2cf
		a94f5374fce5edbc8e2a8697c15331677e6ebf0b a9647f4a0a14042d91dc33c0328030a7157c93ae
		aa6cffe5185732689c18f37a7f86170cb7304c2a aae4a2e3c51c04606dcb3723456e58f3ed214f45
		c37a43e940dfb5baf581a0b82b351d48305fc885 d2571607e241ecf590ed94b12d87c94babe36db6
		f735071cbee190d76b704ce68384fc21e389fbe7`)
	var ops []op
	for _, a := range addrs {
		ops = append(ops, op{"0x" + a, "something"})
	}
	for _, a := range addrs {
		ops = append(ops, op{"0x" + a, ""})
	}
	return ops
}

// decode reads a test-suite string: hex if it starts with 0x, else raw bytes.
func decode(t *testing.T, s string) []byte {
	t.Helper()
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		b, err := hex.DecodeString(h)
		require.NoError(t, err)
		return b
	}
	return []byte(s)
}

func apply(t *testing.T, tr *Trie, ops []op) {
	t.Helper()
	for _, o := range ops {
		tr.Put(decode(t, o.key), decode(t, o.value))
	}
}

func TestVectors(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			tr := New()
			apply(t, tr, v.ops)
			require.Equal(t, v.root, hexRoot(tr))
			checkNodes(t, tr)

			if !v.anyOrder {
				return
			}
			reversed := New()
			for i := len(v.ops) - 1; i >= 0; i-- {
				apply(t, reversed, v.ops[i:i+1])
			}
			require.Equal(t, v.root, hexRoot(reversed))
		})
	}
}

func hexRoot(tr *Trie) string {
	r := tr.Root()
	return "0x" + hex.EncodeToString(r[:])
}
