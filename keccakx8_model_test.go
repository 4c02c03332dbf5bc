package stacktrie

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The AVX-512 kernel runs only where the CPU has AVX-512, so most machines
// that build this package could never check it. This file checks it
// everywhere: it reads keccakx8_amd64.s as text and interprets it, on 32
// registers of eight 64-bit lanes, with the meaning Intel gives each
// instruction, and runs the result against x/crypto. It knows exactly the
// instructions and operand forms the generator writes and refuses the rest,
// so a generator change it does not understand fails the test instead of
// passing unchecked.

// x8Op is what one interpreted instruction does.
type x8Op uint8

const (
	x8Load      x8Op = iota // VMOVDQU64 mem, Zdst
	x8Store                 // VMOVDQU64 Zx, mem
	x8Move                  // VMOVDQU64 Zx, Zdst
	x8Ternlog               // VPTERNLOGQ $imm, Zx, Zy, Zdst: dst is A, y is B, x is C
	x8Rol                   // VPROLQ $imm, Zx, Zdst
	x8Xor                   // VPXORQ Zx, Zy, Zdst
	x8XorMem                // VPXORQ mem, Zy, Zdst
	x8ZeroUpper             // VZEROUPPER
)

// x8Instr is one instruction with its operands in Go assembler order
// (sources first, destination last). A memory operand is resolved when the
// program is parsed, to an argument and a word offset in it: the kernel is
// straight-line code, so which argument DI or SI points to at each
// instruction is known from the MOVQs before it.
type x8Instr struct {
	op   x8Op
	imm  uint64
	x, y int // source Z registers
	dst  int // destination Z register
	arg  int // the memory operand's argument: an index into x8Args
	word int // the memory operand's offset in 64-bit words
}

// x8Program is the parsed body of keccakF1600x8.
type x8Program []x8Instr

// x8Args are keccakF1600x8's pointer arguments, as its frame lays them out.
var x8Args = [...]struct {
	name  string
	frame int // offset in the argument frame, in bytes
	words int // length of the array it points to
}{
	{"state", 0, 200},
	{"rc", 8, 24 * 8},
}

// run interprets p on state with the round constants rc.
func (p x8Program) run(state *[200]uint64, rc *[24 * 8]uint64) {
	var z [32][8]uint64
	mem := [len(x8Args)][]uint64{state[:], rc[:]}
	for _, in := range p {
		switch in.op {
		case x8Load:
			copy(z[in.dst][:], mem[in.arg][in.word:in.word+8])
		case x8Store:
			copy(mem[in.arg][in.word:in.word+8], z[in.x][:])
		case x8Move:
			z[in.dst] = z[in.x]
		case x8Ternlog:
			a, b, c := &z[in.dst], z[in.y], z[in.x]
			for i := range 8 {
				a[i] = ternlog(in.imm, a[i], b[i], c[i])
			}
		case x8Rol:
			for i := range 8 {
				z[in.dst][i] = bits.RotateLeft64(z[in.x][i], int(in.imm%64))
			}
		case x8Xor:
			for i := range 8 {
				z[in.dst][i] = z[in.y][i] ^ z[in.x][i]
			}
		case x8XorMem:
			for i := range 8 {
				z[in.dst][i] = z[in.y][i] ^ mem[in.arg][in.word+i]
			}
		case x8ZeroUpper:
			// Bits 128 and up of Z0..Z15, as in 64-bit mode.
			for r := range 16 {
				clear(z[r][2:])
			}
		}
	}
}

// ternlog is VPTERNLOGQ on one word, from Intel's definition: bit k of the
// result is bit (a<<2 | b<<1 | c) of imm, where a, b, c are bit k of the
// destination, the first source and the second source in Intel's order
// (VPTERNLOGQ zmm1, zmm2, zmm3, imm8), which Go writes reversed as
// VPTERNLOGQ $imm, zmm3, zmm2, zmm1. It ORs the minterms imm selects.
func ternlog(imm, a, b, c uint64) uint64 {
	var r uint64
	for index := range 8 {
		if imm>>index&1 != 0 {
			r |= literal(index&4, a) & literal(index&2, b) & literal(index&1, c)
		}
	}
	return r
}

// literal is w where the minterm has its input set, ^w where it has it clear.
func literal(set int, w uint64) uint64 {
	if set != 0 {
		return w
	}
	return ^w
}

var (
	x8Register = regexp.MustCompile(`^Z([0-9]|[12][0-9]|3[01])$`)
	x8Memory   = regexp.MustCompile(`^(-?[0-9]+)?\(([A-Z0-9]+)\)$`)
	x8Frame    = regexp.MustCompile(`^([a-z_][a-z0-9_]*)\+([0-9]+)\(FP\)$`)
)

// x8Operands is how many operands each instruction of the model takes.
var x8Operands = map[string]int{
	"MOVQ": 2, "VMOVDQU64": 2, "VPTERNLOGQ": 4, "VPROLQ": 3, "VPXORQ": 3, "VZEROUPPER": 0, "RET": 0,
}

// x8Parser holds what the instructions parsed so far left in DI and SI.
type x8Parser struct {
	base map[string]int // pointer register to the index in x8Args it holds
}

// parseX8 parses the body of keccakF1600x8 from the text of
// keccakx8_amd64.s, refusing anything outside the subset run knows.
func parseX8(src string) (x8Program, error) {
	lines := strings.Split(src, "\n")
	text := -1
	for n, line := range lines {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "//") || line == `#include "textflag.h"`:
			continue
		case strings.HasPrefix(line, "TEXT ·keccakF1600x8(SB),"):
			text = n
		default:
			return nil, fmt.Errorf("line %d: %q before the kernel: not understood", n+1, line)
		}
		break
	}
	if text < 0 {
		return nil, fmt.Errorf("no TEXT ·keccakF1600x8(SB)")
	}
	p := x8Parser{base: map[string]int{}}
	var prog x8Program
	returned := false
	for n := text + 1; n < len(lines); n++ {
		line := lines[n]
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if err := p.line(line, returned, &prog); err != nil {
			return nil, fmt.Errorf("line %d: %q: %w", n+1, line, err)
		}
		returned = line == "RET"
	}
	if !returned {
		return nil, fmt.Errorf("no RET at the end")
	}
	return prog, nil
}

// line parses one line of the kernel's body, appending what it runs to
// prog. MOVQ only binds a pointer register; RET must end the program.
func (p *x8Parser) line(line string, returned bool, prog *x8Program) error {
	if returned {
		return fmt.Errorf("after RET")
	}
	if strings.ContainsAny(line, ";:/*#") {
		return fmt.Errorf("not a single plain instruction")
	}
	mnemonic, rest := line, ""
	if i := strings.IndexAny(line, " \t"); i >= 0 {
		mnemonic, rest = line[:i], strings.TrimSpace(line[i:])
	}
	var ops []string
	if rest != "" {
		ops = strings.Split(rest, ",")
		for i := range ops {
			ops[i] = strings.TrimSpace(ops[i])
		}
	}
	n, known := x8Operands[mnemonic]
	if !known {
		return fmt.Errorf("instruction %s not in the model", mnemonic)
	}
	if len(ops) != n {
		return fmt.Errorf("%s with %d operands, want %d", mnemonic, len(ops), n)
	}
	switch mnemonic {
	case "MOVQ":
		return p.bind(ops[0], ops[1])
	case "RET":
		return nil
	}
	in, err := p.instruction(mnemonic, ops)
	if err != nil {
		return err
	}
	*prog = append(*prog, in)
	return nil
}

// instruction parses one instruction that computes, with its operand count
// already checked.
func (p *x8Parser) instruction(mnemonic string, ops []string) (x8Instr, error) {
	var in x8Instr
	var ok bool
	var err error
	switch mnemonic {
	case "VZEROUPPER":
		in.op, ok = x8ZeroUpper, true
	case "VMOVDQU64":
		if in.arg, in.word, ok, err = p.memory(ops[0]); err != nil || ok {
			in.op = x8Load
			in.dst, ok = register(ops[1])
			return in, formError(err, ok)
		}
		if in.arg, in.word, ok, err = p.memory(ops[1]); err != nil || ok {
			in.op = x8Store
			in.x, ok = register(ops[0])
			return in, formError(err, ok)
		}
		in.op = x8Move
		in.x, ok = register(ops[0])
		if ok {
			in.dst, ok = register(ops[1])
		}
	case "VPTERNLOGQ":
		in.op = x8Ternlog
		in.imm, ok = immediate(ops[0])
		ok = ok && registers(&in, ops[1], ops[2], ops[3])
	case "VPROLQ":
		in.op = x8Rol
		in.imm, ok = immediate(ops[0])
		if ok {
			in.x, ok = register(ops[1])
		}
		if ok {
			in.dst, ok = register(ops[2])
		}
	case "VPXORQ":
		// Only the first source may be in memory, as in the encoding.
		if in.arg, in.word, ok, err = p.memory(ops[0]); err != nil || ok {
			in.op = x8XorMem
			in.y, ok = register(ops[1])
			if ok {
				in.dst, ok = register(ops[2])
			}
			return in, formError(err, ok)
		}
		in.op = x8Xor
		ok = registers(&in, ops...)
	}
	return in, formError(nil, ok)
}

// formError is err, or an error for operands of a form the model lacks.
func formError(err error, ok bool) error {
	if err == nil && !ok {
		err = fmt.Errorf("operands of a form not in the model")
	}
	return err
}

// registers parses three Z registers into in's x, y and dst.
func registers(in *x8Instr, ops ...string) bool {
	var ok [3]bool
	in.x, ok[0] = register(ops[0])
	in.y, ok[1] = register(ops[1])
	in.dst, ok[2] = register(ops[2])
	return ok == [3]bool{true, true, true}
}

// register parses Z0..Z31.
func register(s string) (int, bool) {
	m := x8Register.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	r, _ := strconv.Atoi(m[1])
	return r, true
}

// immediate parses an 8-bit immediate, decimal or 0x hexadecimal.
func immediate(s string) (uint64, bool) {
	digits, ok := strings.CutPrefix(s, "$")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(digits, 0, 8)
	return v, err == nil
}

// bind runs MOVQ name+off(FP), reg: reg now points to that argument.
func (p *x8Parser) bind(src, dst string) error {
	m := x8Frame.FindStringSubmatch(src)
	if m == nil || (dst != "DI" && dst != "SI") {
		return fmt.Errorf("MOVQ other than an argument into DI or SI")
	}
	for i, a := range x8Args {
		if m[1] == a.name && m[2] == strconv.Itoa(a.frame) {
			p.base[dst] = i
			return nil
		}
	}
	return fmt.Errorf("no argument %s", src)
}

// memory parses off(DI) or off(SI) as a 64-byte access inside the argument
// the register points to. ok says whether s has the form of a memory
// operand at all; err, whether it is one the model refuses.
func (p *x8Parser) memory(s string) (arg, word int, ok bool, err error) {
	m := x8Memory.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, false, nil
	}
	arg, bound := p.base[m[2]]
	if !bound {
		return 0, 0, true, fmt.Errorf("%s holds no argument", m[2])
	}
	off := 0
	if m[1] != "" {
		off, _ = strconv.Atoi(m[1])
	}
	if off < 0 || off%8 != 0 || off/8+8 > x8Args[arg].words {
		return 0, 0, true, fmt.Errorf("offset %d outside %s or between its words", off, x8Args[arg].name)
	}
	return arg, off / 8, true, nil
}

// modelRoundConstants are Keccak's round constants, each eight times over,
// computed from their definition (FIPS 202, algorithm 5) rather than copied
// from keccakx8_amd64.go, which exists only on amd64 and which this would
// otherwise take on trust.
var modelRoundConstants = func() (rc [24 * 8]uint64) {
	lfsr := uint8(1) // rc(t) is its low bit after t steps
	for round := range 24 {
		var c uint64
		for j := range 7 { // bit 2^j - 1 of the constant is rc(j + 7*round)
			c |= uint64(lfsr&1) << (1<<j - 1)
			// One step of the LFSR of x^8 + x^6 + x^5 + x^4 + 1.
			if lfsr&0x80 != 0 {
				lfsr = lfsr<<1 ^ 0x71
			} else {
				lfsr <<= 1
			}
		}
		for lane := range 8 {
			rc[round*8+lane] = c
		}
	}
	return rc
}()

// x8Kernel is keccakx8_amd64.s parsed, once for all the tests.
var x8Kernel = sync.OnceValues(func() (x8Program, error) {
	src, err := os.ReadFile("keccakx8_amd64.s")
	if err != nil {
		return nil, err
	}
	return parseX8(string(src))
})

func loadX8Kernel(t *testing.T) x8Program {
	t.Helper()
	p, err := x8Kernel()
	require.NoError(t, err, "keccakx8_amd64.s is not in the model's subset")
	return p
}

// modelLanes returns eight lanes whose permutation interprets p.
func modelLanes(p x8Program) *lanes {
	state := new([200]uint64)
	return newLanesOver("modelx8", 8, stagedKernel(state[:], 8, func() { p.run(state, &modelRoundConstants) }))
}

// The AVX-512 kernel, interpreted, against x/crypto, on every machine.
func TestKeccakX8Model(t *testing.T) {
	p := loadX8Kernel(t)
	checkEveryLength(t, modelLanes(p))
	checkMixedBatches(t, modelLanes(p))
}

// The model must not pass a wrong kernel: each small change to the parsed
// program has to change the hashes it computes.
func TestKeccakX8ModelCatchesMutations(t *testing.T) {
	kernel := loadX8Kernel(t)
	// Two messages of several blocks each, so that every word of the state
	// the kernel stores is read again by the next permutation.
	r := rand.New(rand.NewPCG(3, 3))
	msgs := [][]byte{make([]byte, 300), make([]byte, 500)}
	for _, msg := range msgs {
		for i := range msg {
			msg[i] = byte(r.Uint32())
		}
	}
	require.Equal(t, [][32]byte{keccakOracle(msgs[0]), keccakOracle(msgs[1])},
		sumAll(modelLanes(kernel), msgs), "the unchanged kernel")

	first := func(p x8Program, match func(x8Instr) bool) *x8Instr {
		for i := range p {
			if match(p[i]) {
				return &p[i]
			}
		}
		require.FailNow(t, "no instruction to mutate")
		return nil
	}
	tests := []struct {
		name   string
		mutate func(p x8Program)
	}{
		{"rho rotates by 45, not 44", func(p x8Program) {
			first(p, func(in x8Instr) bool { return in.op == x8Rol && in.imm == 44 }).imm = 45
		}},
		{"chi with its two inputs swapped", func(p x8Program) {
			in := first(p, func(in x8Instr) bool { return in.op == x8Ternlog && in.imm == 0xD2 })
			in.x, in.y = in.y, in.x
		}},
		{"theta reads the next register", func(p x8Program) {
			in := first(p, func(in x8Instr) bool { return in.op == x8Xor })
			in.x = (in.x + 1) % 32
		}},
		{"a three-way XOR loses an input", func(p x8Program) {
			first(p, func(in x8Instr) bool { return in.op == x8Ternlog && in.imm == 0x96 }).imm = 0x66
		}},
		{"iota takes the next round's constant", func(p x8Program) {
			first(p, func(in x8Instr) bool { return in.op == x8XorMem }).word += 8
		}},
		{"the last word is stored one word off", func(p x8Program) {
			p[len(p)-2].word-- // the last instruction is VZEROUPPER
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := append(x8Program(nil), kernel...)
			tt.mutate(p)
			got := sumAll(modelLanes(p), msgs)
			for i, msg := range msgs {
				assert.NotEqual(t, keccakOracle(msg), got[i], "message of %d bytes", len(msg))
			}
		})
	}
}

// The parser must refuse what the model does not know, rather than skip it.
func TestKeccakX8ModelRefuses(t *testing.T) {
	const head = "TEXT ·keccakF1600x8(SB), NOSPLIT, $0-16\n\tMOVQ state+0(FP), DI\n\tMOVQ rc+8(FP), SI\n"
	tests := []struct{ name, body string }{
		{"an instruction it lacks", "VPANDQ Z1, Z2, Z3\nRET"},
		{"a Y register", "VPXORQ Y1, Y2, Y3\nRET"},
		{"a register past Z31", "VPROLQ $1, Z32, Z0\nRET"},
		{"a memory operand in ternlog", "VPTERNLOGQ $0x96, 0(DI), Z1, Z2\nRET"},
		{"a memory operand as second source", "VPXORQ Z1, 0(SI), Z2\nRET"},
		{"memory to memory", "VMOVDQU64 0(DI), 64(DI)\nRET"},
		{"a load past the state", "VMOVDQU64 1560(DI), Z0\nRET"},
		{"a load between words", "VMOVDQU64 4(DI), Z0\nRET"},
		{"a base register with no argument", "VMOVDQU64 0(AX), Z0\nRET"},
		{"an immediate too large", "VPROLQ $256, Z1, Z0\nRET"},
		{"a register as immediate", "VPTERNLOGQ Z0, Z1, Z2, Z3\nRET"},
		{"a missing operand", "VPXORQ Z1, Z2\nRET"},
		{"a label", "loop:\nRET"},
		{"two instructions on a line", "VZEROUPPER; RET"},
		{"an instruction after RET", "RET\nVZEROUPPER"},
		{"no RET", "VZEROUPPER"},
		{"another function", "RET\nTEXT ·other(SB), NOSPLIT, $0\nRET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseX8(head + tt.body + "\n")
			assert.Error(t, err)
		})
	}
	_, err := parseX8(head + "VPXORQ 0(SI), Z1, Z2\nVZEROUPPER\nRET\n")
	require.NoError(t, err, "the forms it knows")
	_, err = parseX8("#define X VZEROUPPER\n" + head + "RET\n")
	assert.Error(t, err, "a macro before the kernel")
	_, err = parseX8("TEXT ·keccakF1600x8(SB), NOSPLIT, $0-16\nMOVQ rc+0(FP), DI\nRET\n")
	assert.Error(t, err, "an argument at the wrong frame offset")
}

// ternlog must read its truth table as Intel defines it, with the operand
// roles the generator relies on: 0x96 is a three-way XOR, 0xD2 is chi's
// A ^ (^B & C) with A the destination, B the first source in Intel's
// order (the middle operand in Go's), C the second (Go's first).
func TestKeccakX8ModelTernlog(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for range 100 {
		a, b, c := r.Uint64(), r.Uint64(), r.Uint64()
		assert.Equal(t, a^b^c, ternlog(0x96, a, b, c))
		assert.Equal(t, a^(^b&c), ternlog(0xD2, a, b, c))
		assert.Equal(t, a, ternlog(0xF0, a, b, c))
		assert.Equal(t, b, ternlog(0xCC, a, b, c))
		assert.Equal(t, c, ternlog(0xAA, a, b, c))
	}
}
