package stacktrie

import (
	"encoding/binary"
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

// The AVX-512 kernels run only where the CPU has AVX-512, so most machines
// that build this package could never check them. This file checks them
// everywhere: it reads keccakx8_amd64.s and keccakx8low_amd64.s as text and
// interprets them, on 32 vector registers of eight 64-bit words and the
// mask registers, with the meaning Intel gives each instruction, and runs
// the result against x/crypto. It knows exactly the instructions and operand forms the
// generator writes and refuses the rest, and any read of a register the
// kernel has not written, whose value it cannot know; so a generator change
// it does not understand fails the test instead of passing unchecked.

// x8Op is what one interpreted instruction does. Operands are written as Go
// writes them: sources first, destination last; Intel's order is the
// reverse. Z stands for a vector register of any width the form takes.
type x8Op uint8

const (
	x8Load           x8Op = iota // VMOVDQU64 mem, Zdst
	x8LoadZeroMasked             // VMOVDQU64.Z mem, K, Zdst
	x8Store                      // VMOVDQU64 Zx, mem
	x8Move                       // VMOVDQU64 Zx, Zdst
	x8Ternlog                    // VPTERNLOGQ $imm, Zx, Zy, Zdst: dst is A, y is B, x is C
	x8Rol                        // VPROLQ $imm, Zx, Zdst
	x8Xor                        // VPXORQ Zx, Zy, Zdst
	x8XorMem                     // VPXORQ mem, Zx, Zdst
	x8XorMemMasked               // VPXORQ mem, Zx, K, Zdst
	x8TestMask                   // VPTESTMQ Zx, Zy, K
	x8UnpackLow                  // VPUNPCKLQDQ Zx, Zy, Zdst
	x8UnpackHigh                 // VPUNPCKHQDQ Zx, Zy, Zdst
	x8Shuffle                    // VSHUFI64X2 $imm, Zx, Zy, Zdst
	x8LoadQuad                   // VMOVQ mem, Xdst
	x8InsertQuad                 // VPINSRQ $imm, mem, Xx, Xdst
	x8Insert128                  // VINSERTI128 $imm, Xx, Yy, Ydst
	x8Insert256                  // VINSERTI64X4 $imm, Yx, Zy, Zdst
	x8Extract128                 // VEXTRACTI32X4 $imm, Zx, mem (or Yx)
	x8ZeroUpper                  // VZEROUPPER
)

// x8Instr is one instruction. A memory operand is resolved when the program
// is parsed, to a memory and a word offset in it: what each general
// register points at, at each instruction, is known from the MOVQs and
// ADDQs before it. The kernel's one loop runs a count of rounds set by a
// constant, so the parser follows it, and the program it returns is
// straight-line code: the loop's body once for each time it runs.
type x8Instr struct {
	op     x8Op
	words  int // the width it works on, in 64-bit words: 8 for Z registers, 4 for Y
	imm    uint64
	x, y   int // source registers, in the order Go writes them
	dst    int // destination register
	k      int // mask register: VPTESTMQ's destination, the others' writemask
	region int // the memory operand's memory: an index into x8Regions
	word   int // the memory operand's offset in 64-bit words
}

// x8Program is the parsed body of a kernel.
type x8Program []x8Instr

// x8Region is a memory the kernel reaches.
type x8Region struct {
	name     string
	frame    int  // offset of its pointer in the argument frame, in bytes; -1 for a block
	words    int  // its length in 64-bit words
	writable bool // the kernel may store there
	pointers bool // it holds the blocks' addresses, which only MOVQ reads
}

// x8Block is the index in x8Regions of lane 0's block; lane i's is
// x8Block+i.
const x8Block = 5

// x8Regions are the kernels' arguments, as their frame lays them out, then
// the eight lanes' blocks, which the blocks argument points to. run lays the
// memories out in this order.
var x8Regions = func() (r [x8Block + 8]x8Region) {
	copy(r[:], []x8Region{
		{name: "state", frame: 0, words: 200, writable: true},
		{name: "rc", frame: 8, words: 24 * 8},
		{name: "blocks", frame: 16, words: 8, pointers: true},
		{name: "keep", frame: 24, words: 8},
		{name: "digests", frame: 32, words: 8 * 32 / 8, writable: true},
	})
	for i := range 8 {
		r[x8Block+i] = x8Region{name: fmt.Sprintf("lane %d's block", i), frame: -1, words: keccakRate / 8}
	}
	return r
}()

// run interprets p on state with the round constants rc: one kernel step
// (see kernel) over blocks, keep and digests.
func (p x8Program) run(state *[200]uint64, rc *[24 * 8]uint64, blocks *[8]*[keccakRate]byte, keep *[8]uint64, digests *[8][32]byte) {
	// The blocks and digests are bytes; as memories they are words, in x86's
	// little-endian order. The block pointers are no memory here: the
	// parser resolved every MOVQ that reads them.
	var blockWords [8][keccakRate / 8]uint64
	var digestWords [8 * 32 / 8]uint64
	mems := [len(x8Regions)][]uint64{state[:], rc[:], nil, keep[:], digestWords[:]}
	for i, block := range blocks {
		for w := range blockWords[i] {
			blockWords[i][w] = binary.LittleEndian.Uint64(block[8*w:])
		}
		mems[x8Block+i] = blockWords[i][:]
	}
	for w := range digestWords {
		digestWords[w] = binary.LittleEndian.Uint64(digests[w/4][8*(w%4):])
	}

	// Each register's word i is its bits 64i to 64i+63: X is words 0 and
	// 1, Y words 0 to 3, Z all eight. A mask's bit i is for word i. An
	// EVEX-encoded instruction on Y registers (n = 4 words) zeroes words 4
	// to 7 of its destination: each case computes a whole register r,
	// zero past n, and writes it.
	var z [32][8]uint64
	var k [8]uint8
	for _, in := range p {
		mem := mems[in.region] // for the instructions with a memory operand
		n := in.words
		var r [8]uint64
		switch in.op {
		case x8Load:
			copy(r[:n], mem[in.word:])
			z[in.dst] = r
		case x8LoadZeroMasked:
			// Zeroing-masking: words whose mask bit is clear become zero.
			for i := range n {
				if k[in.k]>>i&1 != 0 {
					r[i] = mem[in.word+i]
				}
			}
			z[in.dst] = r
		case x8Store:
			copy(mem[in.word:in.word+n], z[in.x][:n])
		case x8Move:
			copy(r[:n], z[in.x][:])
			z[in.dst] = r
		case x8Ternlog:
			a, b, c := z[in.dst], z[in.y], z[in.x]
			for i := range n {
				r[i] = ternlog(in.imm, a[i], b[i], c[i])
			}
			z[in.dst] = r
		case x8Rol:
			// VPROLQ rotates by imm modulo 64.
			for i := range n {
				r[i] = bits.RotateLeft64(z[in.x][i], int(in.imm%64))
			}
			z[in.dst] = r
		case x8Xor:
			for i := range n {
				r[i] = z[in.y][i] ^ z[in.x][i]
			}
			z[in.dst] = r
		case x8XorMem:
			for i := range n {
				r[i] = z[in.x][i] ^ mem[in.word+i]
			}
			z[in.dst] = r
		case x8XorMemMasked:
			// Merging-masking: words whose mask bit is clear keep the
			// destination's old value.
			copy(r[:n], z[in.dst][:])
			for i := range n {
				if k[in.k]>>i&1 != 0 {
					r[i] = z[in.x][i] ^ mem[in.word+i]
				}
			}
			z[in.dst] = r
		case x8TestMask:
			// VPTESTMQ k2, zmm2, zmm3 sets bit i of k2 where word i of
			// zmm2 AND zmm3 is not zero, and clears k2's bits n and up
			// (of which k keeps 8: no instruction here reads more).
			var m uint8
			for i := range n {
				if z[in.y][i]&z[in.x][i] != 0 {
					m |= 1 << i
				}
			}
			k[in.k] = m
		case x8UnpackLow, x8UnpackHigh:
			// VPUNPCKLQDQ zmm1, zmm2, zmm3: in each 128 bits, the low
			// word of zmm2 (Go's y), then the low word of zmm3 (Go's x);
			// VPUNPCKHQDQ the same with the high words.
			src1, src2 := z[in.y], z[in.x]
			high := 0
			if in.op == x8UnpackHigh {
				high = 1
			}
			for c := range n / 2 {
				r[2*c] = src1[2*c+high]
				r[2*c+1] = src2[2*c+high]
			}
			z[in.dst] = r
		case x8Shuffle:
			// VSHUFI64X2 zmm1, zmm2, zmm3, imm8: 128-bit quarters 0 and 1
			// of zmm1 are the quarters of zmm2 (Go's y) that imm bits 1:0
			// and 3:2 select, quarters 2 and 3 those of zmm3 (Go's x) that
			// bits 5:4 and 7:6 select. On Y registers, half 0 is the half
			// of ymm2 that imm bit 0 selects, half 1 that of ymm3 bit 1.
			src := [4][8]uint64{z[in.y], z[in.y], z[in.x], z[in.x]}
			per, mask := 2, uint64(3) // imm bits a 128-bit part takes, and their mask
			if n == 4 {
				src = [4][8]uint64{z[in.y], z[in.x]}
				per, mask = 1, 1
			}
			for c := range n / 2 {
				from := int(in.imm >> (per * c) & mask)
				r[2*c], r[2*c+1] = src[c][2*from], src[c][2*from+1]
			}
			z[in.dst] = r
		case x8LoadQuad:
			// VMOVQ xmm1, m64 zeroes the register above the word.
			z[in.dst] = [8]uint64{mem[in.word]}
		case x8InsertQuad:
			// VPINSRQ xmm1, xmm2, m64, imm8: xmm2 (Go's x) with word
			// imm[0] replaced; VEX.128 zeroes bits 128 and up.
			r := [8]uint64{z[in.x][0], z[in.x][1]}
			r[in.imm&1] = mem[in.word]
			z[in.dst] = r
		case x8Insert128:
			// VINSERTI128 ymm1, ymm2, xmm3, imm8: ymm2 (Go's y) with
			// 128-bit half imm[0] replaced by xmm3 (Go's x); VEX.256
			// zeroes bits 256 and up.
			r := [8]uint64{z[in.y][0], z[in.y][1], z[in.y][2], z[in.y][3]}
			half := in.imm & 1
			r[2*half], r[2*half+1] = z[in.x][0], z[in.x][1]
			z[in.dst] = r
		case x8Insert256:
			// VINSERTI64X4 zmm1, zmm2, ymm3, imm8: zmm2 (Go's y) with
			// 256-bit half imm[0] replaced by ymm3 (Go's x).
			r := z[in.y]
			copy(r[4*(in.imm&1):][:4], z[in.x][:4])
			z[in.dst] = r
		case x8Extract128:
			// VEXTRACTI32X4 m128, zmm2, imm8 stores the 128-bit quarter
			// imm[1:0] of zmm2; from ymm2, the half imm[0].
			quarter := in.imm & uint64(n/2-1)
			copy(mem[in.word:in.word+2], z[in.x][2*quarter:2*quarter+2])
		case x8ZeroUpper:
			// Bits 128 and up of Z0..Z15, as in 64-bit mode.
			for r := range 16 {
				clear(z[r][2:])
			}
		}
	}

	for w, v := range digestWords {
		binary.LittleEndian.PutUint64(digests[w/4][8*(w%4):], v)
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
	x8Vector = regexp.MustCompile(`^[XYZ]([0-9]|[12][0-9]|3[01])$`)
	// K0 as a writemask means no mask at all: the model takes K1 to K7.
	x8Mask = regexp.MustCompile(`^K[1-7]$`)
	// The general registers the model tracks pointers in: not SP or BP,
	// which hold the stack and the frame, nor R14 and R15, to which Go
	// gives roles of its own.
	x8General = regexp.MustCompile(`^(AX|BX|CX|DX|SI|DI|R8|R9|R1[0-3])$`)
	x8Memory  = regexp.MustCompile(`^(-?[0-9]+)?\(([A-Z0-9]+)\)$`)
	x8Frame   = regexp.MustCompile(`^([a-z_][a-z0-9_]*)\+([0-9]+)\(FP\)$`)
)

// x8Form is one form of an instruction the model knows: what it does, and
// the kinds of its operands, space-separated, in Go's order. A kind is X, Y
// or Z for a vector register read (the first goes to x, the second to y),
// K for a mask register read, $ for an 8-bit immediate, m8, m16, m32 or m64
// for memory read that many bytes at a time; =kind is written instead of
// read, and +kind read and written (a destination that keeps some of its
// value). The last vector register's kind sets the width the form works on.
type x8Form struct {
	op       x8Op
	operands string
	vex      bool // only VEX-encoded here, so registers 0 to 15 only
}

// x8Forms are the instructions the model knows, by mnemonic. MOVQ and RET
// are apart: they compute nothing.
var x8Forms = map[string][]x8Form{
	"VMOVDQU64": {
		{op: x8Load, operands: "m64 =Z"}, {op: x8Store, operands: "Z =m64"}, {op: x8Move, operands: "Z =Z"},
		{op: x8Load, operands: "m32 =Y"}, {op: x8Store, operands: "Y =m32"}, {op: x8Move, operands: "Y =Y"},
	},
	"VMOVDQU64.Z": {{op: x8LoadZeroMasked, operands: "m64 K =Z"}, {op: x8LoadZeroMasked, operands: "m32 K =Y"}},
	"VPTERNLOGQ":  {{op: x8Ternlog, operands: "$ Z Z +Z"}, {op: x8Ternlog, operands: "$ Y Y +Y"}},
	"VPROLQ":      {{op: x8Rol, operands: "$ Z =Z"}, {op: x8Rol, operands: "$ Y =Y"}},
	// Only the first source may be in memory, as in the encoding; the
	// masked form merges, so it reads its destination.
	"VPXORQ": {
		{op: x8Xor, operands: "Z Z =Z"}, {op: x8XorMem, operands: "m64 Z =Z"}, {op: x8XorMemMasked, operands: "m64 Z K +Z"},
		{op: x8Xor, operands: "Y Y =Y"}, {op: x8XorMem, operands: "m32 Y =Y"}, {op: x8XorMemMasked, operands: "m32 Y K +Y"},
	},
	"VPTESTMQ":    {{op: x8TestMask, operands: "Z Z =K"}, {op: x8TestMask, operands: "Y Y =K"}},
	"VPUNPCKLQDQ": {{op: x8UnpackLow, operands: "Z Z =Z"}, {op: x8UnpackLow, operands: "Y Y =Y"}},
	"VPUNPCKHQDQ": {{op: x8UnpackHigh, operands: "Z Z =Z"}, {op: x8UnpackHigh, operands: "Y Y =Y"}},
	"VSHUFI64X2":  {{op: x8Shuffle, operands: "$ Z Z =Z"}, {op: x8Shuffle, operands: "$ Y Y =Y"}},
	"VMOVQ":       {{op: x8LoadQuad, operands: "m8 =X"}},
	// VINSERTI128 has only a VEX form, and VPINSRQ's EVEX form needs
	// AVX512DQ, which newLanesX8 does not check.
	"VPINSRQ":       {{op: x8InsertQuad, operands: "$ m8 X =X", vex: true}},
	"VINSERTI128":   {{op: x8Insert128, operands: "$ X Y =Y", vex: true}},
	"VINSERTI64X4":  {{op: x8Insert256, operands: "$ Y Z =Z"}},
	"VEXTRACTI32X4": {{op: x8Extract128, operands: "$ Z =m16"}, {op: x8Extract128, operands: "$ Y =m16"}},
	"VZEROUPPER":    {{op: x8ZeroUpper}},
}

// x8Parser holds what the instructions parsed so far left in the registers.
type x8Parser struct {
	base    map[string]int  // general register to the index in x8Regions of the memory it points at
	offset  map[string]int  // how many bytes into that memory the register points, moved by ADDQ
	count   map[string]int  // general register to the constant it holds, a loop's count
	written map[string]bool // the vector registers (by their Z names) and masks some instruction wrote

	// The flags, as the last DECQ left them; ADDQ sets flags the model
	// does not know, and JNZ refuses to read them.
	flagsKnown, zero bool
}

// x8Label is a label of the kernel, the only place a jump may go.
var x8Label = regexp.MustCompile(`^([a-z][a-z0-9_]*):$`)

// x8GeneralOperands are the instructions on general registers the parser
// runs itself, and how many operands each takes.
var x8GeneralOperands = map[string]int{"MOVQ": 2, "ADDQ": 2, "DECQ": 1, "JNZ": 1, "RET": 0}

// x8MaxSteps bounds the lines the parser follows, so that a loop whose
// count never reaches zero fails rather than runs on.
const x8MaxSteps = 1 << 16

// parseX8 parses the body of the kernel name from the text of its file,
// refusing anything outside the subset run knows.
func parseX8(src, name string) (x8Program, error) {
	lines := strings.Split(src, "\n")
	text := -1
	for n, line := range lines {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "//") || line == `#include "textflag.h"`:
			continue
		case strings.HasPrefix(line, "TEXT ·"+name+"(SB),"):
			text = n
		default:
			return nil, fmt.Errorf("line %d: %q before the kernel: not understood", n+1, line)
		}
		break
	}
	if text < 0 {
		return nil, fmt.Errorf("no TEXT ·%s(SB)", name)
	}
	p := x8Parser{base: map[string]int{}, offset: map[string]int{}, count: map[string]int{}, written: map[string]bool{}}
	var prog x8Program
	returned := false
	labels := map[string]int{} // the labels passed so far: a jump goes back only
	steps := 0
	for n := text + 1; n < len(lines); n++ {
		line := lines[n]
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if steps++; steps > x8MaxSteps {
			return nil, fmt.Errorf("line %d: more than %d lines run: a loop that does not end", n+1, x8MaxSteps)
		}
		if m := x8Label.FindStringSubmatch(line); m != nil && !returned {
			if at, seen := labels[m[1]]; seen && at != n {
				return nil, fmt.Errorf("line %d: label %s defined twice", n+1, m[1])
			}
			labels[m[1]] = n
			continue
		}
		jump, err := p.line(line, returned, &prog)
		if err != nil {
			return nil, fmt.Errorf("line %d: %q: %w", n+1, line, err)
		}
		if jump != "" {
			at, seen := labels[jump]
			if !seen {
				return nil, fmt.Errorf("line %d: %q: no label %s before the jump", n+1, line, jump)
			}
			n = at
		}
		returned = line == "RET"
	}
	if !returned {
		return nil, fmt.Errorf("no RET at the end")
	}
	return prog, nil
}

// line parses one line of the kernel's body, appending what it runs to
// prog, and returns the label to go on from when it is a jump taken. MOVQ
// only points a general register at a memory or sets a loop's count, ADDQ
// moves a pointer on, DECQ and JNZ run the loop; RET must end the program.
func (p *x8Parser) line(line string, returned bool, prog *x8Program) (jump string, err error) {
	if returned {
		return "", fmt.Errorf("after RET")
	}
	if strings.ContainsAny(line, ";:/*#") {
		return "", fmt.Errorf("not a single plain instruction")
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
	if want, general := x8GeneralOperands[mnemonic]; general && len(ops) != want {
		return "", fmt.Errorf("%s with %d operands, want %d", mnemonic, len(ops), want)
	}
	switch mnemonic {
	case "MOVQ":
		return "", p.bind(ops[0], ops[1])
	case "ADDQ":
		return "", p.advance(ops[0], ops[1])
	case "DECQ":
		n, counting := p.count[ops[0]]
		if !counting {
			return "", fmt.Errorf("DECQ of %s, which holds no count", ops[0])
		}
		p.count[ops[0]] = n - 1
		p.flagsKnown, p.zero = true, n-1 == 0
		return "", nil
	case "JNZ":
		if !p.flagsKnown {
			return "", fmt.Errorf("JNZ on flags no DECQ set")
		}
		if p.zero {
			return "", nil
		}
		return ops[0], nil
	case "RET":
		return "", nil
	}
	forms, known := x8Forms[mnemonic]
	if !known {
		return "", fmt.Errorf("instruction %s not in the model", mnemonic)
	}
	for _, f := range forms {
		kinds := strings.Fields(f.operands)
		if shapesMatch(kinds, ops) {
			in, err := p.instruction(f, kinds, ops)
			if err != nil {
				return "", err
			}
			*prog = append(*prog, in)
			return "", nil
		}
	}
	return "", fmt.Errorf("operands of a form of %s not in the model", mnemonic)
}

// shapesMatch says whether ops look like operands of the kinds: registers
// of the same width, memory, immediates.
func shapesMatch(kinds, ops []string) bool {
	if len(kinds) != len(ops) {
		return false
	}
	for i, kind := range kinds {
		var shape byte
		switch op := ops[i]; {
		case x8Vector.MatchString(op):
			shape = op[0]
		case x8Mask.MatchString(op):
			shape = 'K'
		case x8Memory.MatchString(op):
			shape = 'm'
		case strings.HasPrefix(op, "$"):
			shape = '$'
		}
		if shape == 0 || shape != strings.TrimLeft(kind, "=+")[0] {
			return false
		}
	}
	return true
}

// instruction parses the operands of an instruction of form f, which have
// the shapes of its kinds, refusing a register read before any instruction
// wrote it and memory the instruction cannot reach.
func (p *x8Parser) instruction(f x8Form, kinds, ops []string) (x8Instr, error) {
	in := x8Instr{op: f.op}
	sources := 0
	var writes []string // what the instruction writes, done after its reads
	for i, kind := range kinds {
		op := ops[i]
		read, write := kind[0] != '=', kind[0] == '=' || kind[0] == '+'
		kind = strings.TrimLeft(kind, "=+")
		switch kind[0] {
		case '$':
			var ok bool
			if in.imm, ok = immediate(op); !ok {
				return in, fmt.Errorf("immediate %s not of 8 bits", op)
			}
			continue
		case 'm':
			size, _ := strconv.Atoi(kind[1:])
			var err error
			if in.region, in.word, err = p.memory(op, size); err != nil {
				return in, err
			}
			switch r := x8Regions[in.region]; {
			case r.pointers:
				return in, fmt.Errorf("%s holds pointers, which only MOVQ reads", r.name)
			case write && !r.writable:
				return in, fmt.Errorf("a store into %s", r.name)
			}
			continue
		case 'K':
			in.k = int(op[1] - '0')
		default: // X, Y or Z: a view of the same Z register
			in.words = map[byte]int{'X': 2, 'Y': 4, 'Z': 8}[kind[0]]
			n, _ := strconv.Atoi(op[1:])
			if f.vex && n >= 16 {
				return in, fmt.Errorf("%s in an instruction the model takes VEX-encoded only", op)
			}
			switch {
			case write:
				in.dst = n
			case sources == 0:
				in.x, sources = n, 1
			default:
				in.y = n
			}
			op = "Z" + op[1:]
		}
		if read && !p.written[op] {
			return in, fmt.Errorf("%s read before any instruction writes it", op)
		}
		if write {
			writes = append(writes, op)
		}
	}
	for _, op := range writes {
		p.written[op] = true
	}
	return in, nil
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

// bind runs a MOVQ, which the model takes only for loading a pointer or a
// count: MOVQ name+off(FP), reg points reg at that argument, MOVQ
// off(base), reg, where base points at blocks, points reg at lane off/8's
// block, and MOVQ $n, reg sets a loop's count.
func (p *x8Parser) bind(src, dst string) error {
	if !x8General.MatchString(dst) {
		return fmt.Errorf("MOVQ into %s, not a general register the model tracks", dst)
	}
	delete(p.base, dst)
	delete(p.offset, dst)
	delete(p.count, dst)
	if n, ok := immediate(src); ok {
		if n == 0 {
			return fmt.Errorf("a count of 0, which DECQ takes below zero")
		}
		p.count[dst] = int(n)
		return nil
	}
	if m := x8Frame.FindStringSubmatch(src); m != nil {
		for i, r := range x8Regions {
			if r.frame >= 0 && m[1] == r.name && m[2] == strconv.Itoa(r.frame) {
				p.base[dst] = i
				return nil
			}
		}
		return fmt.Errorf("no argument %s", src)
	}
	region, word, err := p.memory(src, 8)
	if err != nil {
		return err
	}
	if !x8Regions[region].pointers {
		return fmt.Errorf("MOVQ from %s, not a block pointer", x8Regions[region].name)
	}
	p.base[dst] = x8Block + word
	return nil
}

// advance runs ADDQ $n, reg, which the model takes only for moving a
// pointer on: the accesses through reg are checked against its memory as
// they come. It leaves flags the model does not know.
func (p *x8Parser) advance(src, dst string) error {
	n, ok := immediate(src)
	if !ok {
		return fmt.Errorf("ADDQ of %s, not an 8-bit immediate", src)
	}
	if _, bound := p.base[dst]; !bound {
		return fmt.Errorf("ADDQ to %s, which points at no memory", dst)
	}
	p.offset[dst] += int(n)
	p.flagsKnown = false
	return nil
}

// memory parses off(reg) as an access of size bytes inside the memory reg
// points at, returning the memory and the offset in words. A masked access
// must fit whole too, though the CPU skips the words its mask leaves out.
func (p *x8Parser) memory(s string, size int) (region, word int, err error) {
	m := x8Memory.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, fmt.Errorf("%s: neither an argument nor memory a register points at", s)
	}
	region, bound := p.base[m[2]]
	if !bound {
		return 0, 0, fmt.Errorf("%s points at no memory", m[2])
	}
	off := p.offset[m[2]]
	if m[1] != "" {
		disp, err := strconv.Atoi(m[1])
		if err != nil {
			return 0, 0, err
		}
		off += disp
	}
	r := x8Regions[region]
	if off < 0 || off%8 != 0 || off > 8*r.words-size {
		return 0, 0, fmt.Errorf("%d bytes at offset %d: outside %s or between its words", size, off, r.name)
	}
	return region, off / 8, nil
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

// An x8Source is a kernel the model checks: its file and its name.
type x8Source struct {
	file, name string
	lanes      int // the lanes it hashes: 8, or lanes 0 to 3 alone
}

var (
	x8Full = x8Source{"keccakx8_amd64.s", "keccakX8", 8}
	x8Low  = x8Source{"keccakx8low_amd64.s", "keccakX8Low", 4}
)

// x8Parsed holds each kernel parsed, once for all the tests.
var x8Parsed = map[x8Source]func() (x8Program, error){
	x8Full: sync.OnceValues(x8Full.parse),
	x8Low:  sync.OnceValues(x8Low.parse),
}

func (k x8Source) parse() (x8Program, error) {
	src, err := os.ReadFile(k.file)
	if err != nil {
		return nil, err
	}
	return parseX8(string(src), k.name)
}

func (k x8Source) load(t *testing.T) x8Program {
	t.Helper()
	p, err := x8Parsed[k]()
	require.NoError(t, err, "%s is not in the model's subset", k.file)
	return p
}

// modelLanes returns lanes lanes whose kernel interprets p at every step:
// for the kernel of lanes 0 to 3, four lanes, whose others always idle.
func modelLanes(p x8Program, lanes int) *lanes {
	state := new([200]uint64)
	return newLanesOver("modelx8", lanes, func(blocks *[maxLanes]*[keccakRate]byte, keep *[maxLanes]uint64, digests *[maxLanes][32]byte) {
		p.run(state, &modelRoundConstants, blocks, keep, digests)
	})
}

// modelLanesX8 returns eight lanes that interpret the two kernels as the
// AVX-512 lanes run them: low where lanes 4 to 7 idle, full elsewhere, on
// the same states. It counts the steps of each in steps: full, then low.
func modelLanesX8(full, low x8Program, steps *[2]int) *lanes {
	state := new([200]uint64)
	return newLanesOver("modelx8", 8, func(blocks *[maxLanes]*[keccakRate]byte, keep *[maxLanes]uint64, digests *[maxLanes][32]byte) {
		if upperIdle(blocks) {
			steps[1]++
			low.run(state, &modelRoundConstants, blocks, keep, digests)
			return
		}
		steps[0]++
		full.run(state, &modelRoundConstants, blocks, keep, digests)
	})
}

// The AVX-512 kernels, interpreted, against x/crypto, on every machine:
// each alone, and the two taking turns on the same states.
func TestKeccakX8Model(t *testing.T) {
	full, low := x8Full.load(t), x8Low.load(t)
	t.Run("full", func(t *testing.T) {
		checkEveryLength(t, modelLanes(full, 8))
		checkMixedBatches(t, modelLanes(full, 8))
	})
	t.Run("low", func(t *testing.T) {
		checkEveryLength(t, modelLanes(low, 4))
		checkMixedBatches(t, modelLanes(low, 4))
	})
	t.Run("both", func(t *testing.T) {
		var steps [2]int
		checkEveryLength(t, modelLanesX8(full, low, &steps))
		checkMixedBatches(t, modelLanesX8(full, low, &steps))
		t.Logf("%d full steps, %d low", steps[0], steps[1])
		assert.Positive(t, steps[0], "full steps")
		assert.Positive(t, steps[1], "low steps")
	})
}

// The model must not pass a wrong kernel: each small change to the parsed
// program, in the absorb, the rounds or the digests, has to get some hash
// wrong.
func TestKeccakX8ModelCatchesMutations(t *testing.T) {
	for _, k := range []x8Source{x8Full, x8Low} {
		t.Run(k.name, func(t *testing.T) { checkMutationsCaught(t, k) })
	}
}

func checkMutationsCaught(t *testing.T, k x8Source) {
	kernel := k.load(t)
	// Messages of several blocks, so that every word of the state the
	// kernel stores is read again by the next step, and more of them than
	// lanes, so that some start in a lane another message left its state
	// in.
	r := rand.New(rand.NewPCG(3, 3))
	var msgs [][]byte
	var want [][32]byte
	for _, n := range []int{300, 500, 0, 135, 136, 137, 271, 700, 1000, 50, 400, 272} {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(r.Uint32())
		}
		msgs = append(msgs, msg)
		want = append(want, keccakOracle(msg))
	}
	require.Equal(t, want, sumAll(modelLanes(kernel, k.lanes), msgs), "the unchanged kernel")

	// find returns the instructions of p that match, in order.
	find := func(p x8Program, match func(x8Instr) bool) []*x8Instr {
		var found []*x8Instr
		for i := range p {
			if match(p[i]) {
				found = append(found, &p[i])
			}
		}
		require.NotEmpty(t, found, "no instruction to mutate")
		return found
	}
	first := func(p x8Program, match func(x8Instr) bool) *x8Instr { return find(p, match)[0] }
	last := func(p x8Program, match func(x8Instr) bool) *x8Instr {
		found := find(p, match)
		return found[len(found)-1]
	}
	is := func(op x8Op) func(x8Instr) bool { return func(in x8Instr) bool { return in.op == op } }
	tests := []struct {
		name   string
		mutate func(p x8Program)
	}{
		{"the absorb unpacks with its sources swapped", func(p x8Program) {
			in := first(p, is(x8UnpackLow))
			in.x, in.y = in.y, in.x
		}},
		{"an absorb shuffle takes other 128 bits", func(p x8Program) {
			first(p, is(x8Shuffle)).imm ^= 1
		}},
		{"word 16 goes over the neighbour lane's", func(p x8Program) {
			first(p, is(x8InsertQuad)).imm ^= 1
		}},
		{"word 16 of lanes 2 and 3 goes into the wrong half", func(p x8Program) {
			first(p, is(x8Insert128)).imm ^= 1
		}},
		{"a lane that starts takes its old state in", func(p x8Program) {
			first(p, is(x8XorMemMasked)).op = x8XorMem
		}},
		{"a lane that starts keeps its old word 17", func(p x8Program) {
			first(p, is(x8LoadZeroMasked)).op = x8Load
		}},
		{"rho rotates by 45, not 44", func(p x8Program) {
			first(p, func(in x8Instr) bool { return in.op == x8Rol && in.imm == 44 }).imm = 45
		}},
		{"chi with its two inputs swapped", func(p x8Program) {
			in := first(p, func(in x8Instr) bool { return in.op == x8Ternlog && in.imm == 0xD2 })
			in.x, in.y = in.y, in.x
		}},
		{"theta reads the next register", func(p x8Program) {
			in := first(p, is(x8Xor))
			in.x = (in.x + 1) % 32
		}},
		{"a three-way XOR loses an input", func(p x8Program) {
			first(p, func(in x8Instr) bool { return in.op == x8Ternlog && in.imm == 0x96 }).imm = 0x66
		}},
		{"iota takes the next round's constant", func(p x8Program) {
			first(p, is(x8XorMem)).word += 8
		}},
		{"a word stays out of its register after the last round", func(p x8Program) {
			in := last(p, is(x8Move))
			in.x = in.dst
		}},
		{"the last word is stored one word off", func(p x8Program) {
			last(p, is(x8Store)).word--
		}},
		{"a digest takes its first words from another lane", func(p x8Program) {
			first(p, is(x8Extract128)).imm ^= 1
		}},
		{"the digests unpack words 2 and 3 the wrong way round", func(p x8Program) {
			in := last(p, is(x8UnpackLow))
			in.x, in.y = in.y, in.x
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := append(x8Program(nil), kernel...)
			tt.mutate(p)
			assert.NotEqual(t, want, sumAll(modelLanes(p, k.lanes), msgs), "every hash still right")
		})
	}

	// The loop's control, changed in the source, which the parser follows.
	src, err := os.ReadFile(k.file)
	require.NoError(t, err)
	for _, tt := range []struct{ name, old, new string }{
		{"23 rounds", "MOVQ $24, AX", "MOVQ $23, AX"},
		{"every round with the first round's constant", "ADDQ $64, SI", "ADDQ $0, SI"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, 1, strings.Count(string(src), tt.old), "the line to change")
			p, err := parseX8(strings.Replace(string(src), tt.old, tt.new, 1), k.name)
			require.NoError(t, err)
			assert.NotEqual(t, want, sumAll(modelLanes(p, k.lanes), msgs), "every hash still right")
		})
	}
}

// The parser must refuse what the model does not know, rather than skip it.
func TestKeccakX8ModelRefuses(t *testing.T) {
	const head = "TEXT ·keccakX8(SB), NOSPLIT, $0-40\n" +
		"\tMOVQ state+0(FP), DI\n\tMOVQ rc+8(FP), SI\n\tMOVQ blocks+16(FP), AX\n" +
		"\tMOVQ 0(AX), BX\n\tMOVQ 56(AX), CX\n\tMOVQ keep+24(FP), DX\n\tMOVQ digests+32(FP), R8\n" +
		"\tVMOVDQU64 0(DX), Z0\n\tVPTESTMQ Z0, Z0, K1\n" +
		"\tVMOVDQU64 0(DI), Z1\n\tVMOVDQU64 64(DI), Z2\n\tVMOVDQU64 128(DI), Z16\n"
	tests := []struct{ name, body string }{
		{"an instruction it lacks", "VPANDQ Z1, Z2, Z3"},
		{"a Y register among Z registers", "VPXORQ Y1, Z2, Z3"},
		{"an X register where it takes Y or Z", "VPXORQ X1, X2, X3"},
		{"a Y load past the state", "VMOVDQU64 1576(DI), Y3"},
		{"a Y register shuffled with a Z register", "VSHUFI64X2 $0, Y1, Z2, Z3"},
		{"a register past Z31", "VPROLQ $1, Z32, Z0"},
		{"a memory operand in ternlog", "VPTERNLOGQ $0x96, 0(DI), Z1, Z2"},
		{"a memory operand as second source", "VPXORQ Z1, 0(SI), Z2"},
		{"memory to memory", "VMOVDQU64 0(DI), 64(DI)"},
		{"a load past the state", "VMOVDQU64 1560(DI), Z0"},
		{"a load between words", "VMOVDQU64 4(DI), Z0"},
		{"a base register with no memory", "VMOVDQU64 0(R9), Z0"},
		{"an immediate too large", "VPROLQ $256, Z1, Z0"},
		{"a register as immediate", "VPTERNLOGQ Z0, Z1, Z2, Z3"},
		{"a missing operand", "VPXORQ Z1, Z2"},
		{"a register read before written", "VPXORQ Z1, Z3, Z4"},
		{"a merge into a register never written", "VPXORQ 0(DI), Z1, K1, Z5"},
		{"a mask never written", "VMOVDQU64.Z 0(DI), K2, Z3"},
		{"K0 as a writemask", "VPXORQ 0(DI), Z1, K0, Z1"},
		{"a masked XOR of registers", "VPXORQ Z2, Z1, K1, Z1"},
		{"a zero-masked move of registers", "VMOVDQU64.Z Z1, K1, Z3"},
		{"a mask test into a vector", "VPTESTMQ Z0, Z0, Z3"},
		{"a store into rc", "VMOVDQU64 Z1, 0(SI)"},
		{"a store into a block", "VMOVDQU64 Z1, 0(BX)"},
		{"a store past the digests", "VEXTRACTI32X4 $3, Z1, 256(R8)"},
		{"a store between words of the digests", "VEXTRACTI32X4 $0, Z1, 4(R8)"},
		{"a load past a block", "VMOVDQU64 128(CX), Z3"},
		{"a word past a block", "VMOVQ 136(BX), X3"},
		{"a word inserted from past a block", "VPINSRQ $1, 136(BX), X1, X1"},
		{"a vector load of the block pointers", "VMOVDQU64 0(AX), Z3"},
		{"a VEX insert into a high register", "VPINSRQ $1, 128(BX), X16, X16"},
		{"a VEX insert of a high register", "VINSERTI128 $1, X16, Y1, Y1"},
		{"an extract into a register", "VEXTRACTI32X4 $0, Z1, X3"},
		{"a word inserted from a register", "VPINSRQ $1, AX, X1, X1"},
		{"a pointer from the state", "MOVQ 0(DI), R9"},
		{"a pointer past the blocks", "MOVQ 64(AX), R9"},
		{"a pointer between the blocks' words", "MOVQ 4(AX), R9"},
		{"a pointer into the frame pointer", "MOVQ 0(AX), BP"},
		{"a MOVQ between registers", "MOVQ BX, R9"},
		{"a jump forward", "MOVQ $2, R9\nDECQ R9\nJNZ later\nlater:"},
		{"a jump to no label", "MOVQ $2, R9\nDECQ R9\nJNZ nowhere"},
		{"a jump on flags no DECQ set", "loop:\nJNZ loop"},
		{"a jump on flags ADDQ set", "MOVQ $2, R9\nloop:\nDECQ R9\nADDQ $64, SI\nJNZ loop"},
		{"a label defined twice", "again:\nagain:"},
		{"a loop that does not end", "loop:\nMOVQ $2, R9\nDECQ R9\nJNZ loop"},
		{"a count of zero", "MOVQ $0, R9"},
		{"a count too large", "MOVQ $256, R9"},
		{"a DECQ of a pointer", "DECQ DI"},
		{"a count used as a pointer", "MOVQ $2, DI\nVMOVDQU64 0(DI), Z3"},
		{"an ADDQ to a register with no memory", "ADDQ $64, R9"},
		{"an ADDQ of a register", "ADDQ R9, SI"},
		{"a pointer moved past its memory", "ADDQ $64, DX\nVMOVDQU64 0(DX), Z3"},
		{"a DECQ with two operands", "MOVQ $2, R9\nDECQ R9, R9"},
		{"two instructions on a line", "VZEROUPPER; RET"},
		{"an instruction after RET", "RET\nVZEROUPPER"},
		{"another function", "RET\nTEXT ·other(SB), NOSPLIT, $0\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if !strings.Contains(body, "RET") {
				body += "\nRET"
			}
			_, err := parseX8(head+body+"\n", "keccakX8")
			assert.Error(t, err)
		})
	}
	_, err := parseX8(head+"VZEROUPPER\n", "keccakX8")
	assert.Error(t, err, "no RET")
	_, err = parseX8(head+strings.Join([]string{
		"VPXORQ 0(SI), Z1, Z3", "VPXORQ 64(DI), Z1, K1, Z1", "VMOVDQU64.Z 1536(DI), K1, Z4",
		"VPUNPCKLQDQ Z2, Z1, Z5", "VPUNPCKHQDQ Z2, Z1, Z6", "VSHUFI64X2 $0xdd, Z6, Z5, Z7",
		"VMOVQ 128(BX), X8", "VPINSRQ $1, 128(CX), X8, X8", "VINSERTI128 $1, X8, Y1, Y9",
		"VINSERTI64X4 $1, Y9, Z16, Z17", "VMOVDQU64 64(CX), Z10", "VMOVDQU64 Z17, 1536(DI)",
		"VEXTRACTI32X4 $3, Z7, 240(R8)",
		"VMOVDQU64 64(DI), Y11", "VPTESTMQ Y11, Y11, K2", "VPXORQ 1568(DI), Y11, K2, Y11", "VMOVDQU64.Z 1568(DI), K2, Y12",
		"VPTERNLOGQ $0xD2, Y11, Y12, Y12", "VPROLQ $3, Y12, Y13", "VPXORQ Y12, Y13, Y14", "VPUNPCKLQDQ Y13, Y14, Y15",
		"VPUNPCKHQDQ Y13, Y14, Y18", "VSHUFI64X2 $3, Y18, Y15, Y19", "VMOVDQU64 Y19, Y20", "VMOVDQU64 Y20, 1568(DI)",
		"VEXTRACTI32X4 $1, Y20, 240(R8)", "VZEROUPPER", "RET",
	}, "\n")+"\n", "keccakX8")
	require.NoError(t, err, "the forms it knows")

	// A loop is followed: its body once for each count, each time through
	// the pointer as ADDQ left it.
	loop, err := parseX8(head+strings.Join([]string{
		"MOVQ $3, R9", "loop:", "VPXORQ 0(SI), Z1, Z1", "ADDQ $64, SI", "DECQ R9", "JNZ loop", "RET",
	}, "\n")+"\n", "keccakX8")
	require.NoError(t, err, "a loop")
	var words []int
	for _, in := range loop {
		if in.op == x8XorMem {
			words = append(words, in.word)
		}
	}
	assert.Equal(t, []int{0, 8, 16}, words, "the round constants a loop of three reads")
	_, err = parseX8("#define X VZEROUPPER\n"+head+"RET\n", "keccakX8")
	assert.Error(t, err, "a macro before the kernel")
	_, err = parseX8("TEXT ·keccakX8(SB), NOSPLIT, $0-40\nMOVQ rc+0(FP), DI\nRET\n", "keccakX8")
	assert.Error(t, err, "an argument at the wrong frame offset")
	_, err = parseX8(head+"RET\n", "keccakX8Low")
	assert.Error(t, err, "another kernel than the one asked for")
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
