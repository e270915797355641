package abi

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestHandles(t *testing.T) {
	file, sock := NewResourceType("file"), NewResourceType("socket")
	tbl := NewHandles()
	h1, err := tbl.New(file, 100)
	if err != nil || h1 != 1 {
		t.Fatalf("first handle %d, %v; want 1 (index 0 is reserved)", h1, err)
	}
	h2, _ := tbl.New(file, 200)
	if rep, err := tbl.Rep(file, h2); err != nil || rep != 200 {
		t.Fatalf("Rep = %d, %v", rep, err)
	}
	if _, err := tbl.Rep(sock, h2); !errors.Is(err, ErrHandle) {
		t.Errorf("Rep with the wrong resource type: %v", err)
	}
	for _, h := range []uint32{0, 3, 1 << 31} {
		if _, err := tbl.Rep(file, h); !errors.Is(err, ErrHandle) {
			t.Errorf("Rep(%d): %v", h, err)
		}
	}
	rep, own, err := tbl.Drop(file, h1)
	if err != nil || rep != 100 || !own {
		t.Fatalf("Drop = %d, %v, %v", rep, own, err)
	}
	if _, _, err := tbl.Drop(file, h1); !errors.Is(err, ErrHandle) {
		t.Errorf("double drop: %v", err)
	}
	if h, _ := tbl.New(sock, 300); h != h1 {
		t.Errorf("freed index %d not reused (got %d)", h1, h)
	}
	if tbl.Len() != 2 {
		t.Errorf("Len %d", tbl.Len())
	}
}

func TestHandlesLends(t *testing.T) {
	file := NewResourceType("file")
	tbl := NewHandles()
	h, _ := tbl.New(file, 7)
	scope := &BorrowScope{}
	if rep, err := tbl.LiftBorrow(file, h, scope); err != nil || rep != 7 {
		t.Fatalf("LiftBorrow = %d, %v", rep, err)
	}
	if _, err := tbl.LiftOwn(file, h); !errors.Is(err, ErrHandle) || !strings.Contains(err.Error(), "lent") {
		t.Errorf("moving a lent handle: %v", err)
	}
	if _, _, err := tbl.Drop(file, h); !errors.Is(err, ErrHandle) {
		t.Errorf("dropping a lent handle: %v", err)
	}
	if err := scope.End(); err != nil {
		t.Fatal(err)
	}
	if rep, err := tbl.LiftOwn(file, h); err != nil || rep != 7 {
		t.Errorf("LiftOwn after the call = %d, %v", rep, err)
	}
	if tbl.Len() != 0 {
		t.Errorf("Len %d after moving out", tbl.Len())
	}
	// A borrow handle cannot be moved out as own, and dropping it ends it in its scope.
	bs := &BorrowScope{}
	b, err := tbl.LowerBorrow(file, 9, bs)
	if err != nil || bs.Live() != 1 {
		t.Fatalf("LowerBorrow = %d, %v, live %d", b, err, bs.Live())
	}
	if _, err := tbl.LiftOwn(file, b); !errors.Is(err, ErrHandle) {
		t.Errorf("LiftOwn of a borrow: %v", err)
	}
	if err := bs.End(); !errors.Is(err, ErrBorrowOutstanding) {
		t.Errorf("End with a live borrow: %v", err)
	}
	if _, own, err := tbl.Drop(file, b); err != nil || own || bs.Live() != 0 {
		t.Errorf("Drop borrow: own %v, %v, live %d", own, err, bs.Live())
	}
	if err := bs.End(); err != nil {
		t.Errorf("End after drop: %v", err)
	}
	// An instance that implements the resource gets the rep itself for a borrow.
	local := NewHandles(file)
	if h, err := local.LowerBorrow(file, 42, bs); err != nil || h != 42 || bs.Live() != 0 || local.Len() != 0 {
		t.Errorf("local LowerBorrow = %d, %v (live %d, len %d)", h, err, bs.Live(), local.Len())
	}
}

// guest simulates a component instance's side of a call: its table and memory.
type guest struct {
	mem   *SliceMemory
	table *Handles
}

func newGuest() *guest {
	return &guest{mem: NewSliceMemory(1<<16, 1<<20), table: NewHandles()}
}

func (g *guest) cx() *CallContext {
	return &CallContext{Memory: g.mem, Realloc: g.mem.Realloc, Handles: g.table}
}

func TestCallExportBorrowScope(t *testing.T) {
	file := NewResourceType("file")
	ft := Must(FuncOf([]Param{{"f", Must(BorrowOf(file))}}, U32))
	for _, drop := range []bool{true, false} {
		t.Run(fmt.Sprintf("drop=%v", drop), func(t *testing.T) {
			g := newGuest()
			cx := g.cx()
			postReturn := 0
			cx.PostReturn = func([]uint64) error { postReturn++; return nil }
			got, err := ft.CallExport(cx, []Value{BorrowValue(55)}, func(flat []uint64) ([]uint64, error) {
				h := uint32(flat[0])
				rep, err := g.table.Rep(file, h)
				if err != nil || rep != 55 {
					t.Fatalf("guest sees handle %d → %d, %v", h, rep, err)
				}
				if drop {
					if _, own, err := g.table.Drop(file, h); err != nil || own {
						t.Fatalf("guest drop: %v", err)
					}
				}
				return []uint64{uint64(rep) + 1}, nil
			})
			if drop {
				if err != nil || got[0].Uint() != 56 || postReturn != 1 {
					t.Fatalf("CallExport = %v, %v (post-return %d)", got, err, postReturn)
				}
				return
			}
			if !errors.Is(err, ErrBorrowOutstanding) || postReturn != 0 {
				t.Fatalf("undropped borrow: %v (post-return %d)", err, postReturn)
			}
		})
	}
}

func TestServeImportLends(t *testing.T) {
	file := NewResourceType("file")
	ft := Must(FuncOf([]Param{{"f", Must(BorrowOf(file))}, {"g", Must(OwnOf(file))}}, Must(OwnOf(file))))
	g := newGuest()
	hb, _ := g.table.New(file, 10)
	ho, _ := g.table.New(file, 20)
	out, err := ft.ServeImport(g.cx(), []uint64{uint64(hb), uint64(ho)}, func(args []Value) ([]Value, error) {
		if args[0].Kind() != KindBorrow || args[0].Rep() != 10 || args[1].Kind() != KindOwn || args[1].Rep() != 20 {
			t.Fatalf("host args %v", args)
		}
		// While the host runs, the lent handle cannot go away, and the owned one is gone.
		if _, _, err := g.table.Drop(file, hb); !errors.Is(err, ErrHandle) {
			t.Errorf("guest dropped a lent handle during the call: %v", err)
		}
		if _, err := g.table.Rep(file, ho); !errors.Is(err, ErrHandle) {
			t.Errorf("moved handle still present: %v", err)
		}
		return []Value{OwnValue(30)}, nil
	})
	if err != nil || len(out) != 1 {
		t.Fatalf("ServeImport = %v, %v", out, err)
	}
	if rep, err := g.table.Rep(file, uint32(out[0])); err != nil || rep != 30 {
		t.Errorf("returned own handle %d → %d, %v", out[0], rep, err)
	}
	if _, _, err := g.table.Drop(file, hb); err != nil {
		t.Errorf("lend not released after the call: %v", err)
	}
}

func TestCallExport_Errors(t *testing.T) {
	sig := Must(FuncOf([]Param{{"s", String}}, String))
	boom := errors.New("boom")
	tests := []struct {
		name string
		args []Value
		core func([]uint64) ([]uint64, error)
		cx   func(*CallContext)
		want error
		msg  string
	}{
		{name: "arity", args: nil, want: ErrTypeMismatch},
		{name: "arg kind", args: []Value{U8Value(1)}, want: ErrTypeMismatch, msg: `lower param "s": expected`},
		{name: "core traps", args: []Value{StringValue("x")}, core: func([]uint64) ([]uint64, error) { return nil, boom }, want: boom},
		{name: "core results", args: []Value{StringValue("x")}, core: func([]uint64) ([]uint64, error) { return nil, nil }, want: ErrCoreValues},
		{name: "bad return pointer", args: []Value{StringValue("x")},
			core: func([]uint64) ([]uint64, error) { return []uint64{1 << 20}, nil }, want: ErrOutOfBounds},
		{name: "misaligned return pointer", args: []Value{StringValue("x")},
			core: func([]uint64) ([]uint64, error) { return []uint64{2}, nil }, want: ErrMisaligned},
		{name: "bad returned string", args: []Value{StringValue("x")},
			core: func([]uint64) ([]uint64, error) { return []uint64{0}, nil }, want: ErrOutOfBounds, msg: "lift result: string"},
		{name: "post-return fails", args: []Value{StringValue("x")},
			cx: func(cx *CallContext) { cx.PostReturn = func([]uint64) error { return boom } }, want: ErrPostReturn},
		{name: "async", args: []Value{StringValue("x")}, cx: func(cx *CallContext) { cx.Async = true }, want: ErrAsync},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGuest()
			// Word 0 of memory, used as a result area, points at a string far out of bounds.
			le.PutUint32(g.mem.buf[0:], 0xFFFF0000)
			le.PutUint32(g.mem.buf[4:], 16)
			cx := g.cx()
			if tt.cx != nil {
				tt.cx(cx)
			}
			core := tt.core
			if core == nil {
				core = func(flat []uint64) ([]uint64, error) {
					// Return the argument string through a fresh result area.
					p, _ := g.mem.Realloc(0, 0, 4, 8)
					le.PutUint32(g.mem.buf[p:], uint32(flat[0]))
					le.PutUint32(g.mem.buf[p+4:], uint32(flat[1]))
					return []uint64{uint64(p)}, nil
				}
			}
			_, err := sig.CallExport(cx, tt.args, core)
			if !errors.Is(err, tt.want) || !strings.Contains(errString(err), tt.msg) {
				t.Fatalf("CallExport: %v; want %v containing %q", err, tt.want, tt.msg)
			}
		})
	}
}

func TestServeImport_Errors(t *testing.T) {
	sig := Must(FuncOf([]Param{{"s", String}}, String))
	boom := errors.New("boom")
	g := newGuest()
	copy(g.mem.buf[100:], "hello")
	const retptr = 60000 // above anything the bump allocator hands out here
	ok := func([]Value) ([]Value, error) { return []Value{StringValue("r")}, nil }
	tests := []struct {
		name string
		flat []uint64
		host func([]Value) ([]Value, error)
		want error
	}{
		{"core arity", []uint64{100, 5}, ok, ErrCoreValues},
		{"bad string", []uint64{100, 1 << 20, retptr}, ok, ErrOutOfBounds},
		{"host fails", []uint64{100, 5, retptr}, func([]Value) ([]Value, error) { return nil, boom }, boom},
		{"host result kind", []uint64{100, 5, retptr}, func([]Value) ([]Value, error) { return []Value{U8Value(1)}, nil }, ErrTypeMismatch},
		{"host result count", []uint64{100, 5, retptr}, func([]Value) ([]Value, error) { return nil, nil }, ErrTypeMismatch},
		{"misaligned retptr", []uint64{100, 5, 6}, ok, ErrMisaligned},
		{"retptr beyond memory", []uint64{100, 5, 1<<16 - 4}, ok, ErrOutOfBounds},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := sig.ServeImport(g.cx(), tt.flat, tt.host); !errors.Is(err, tt.want) {
				t.Fatalf("ServeImport: %v; want %v", err, tt.want)
			}
		})
	}
	out, err := sig.ServeImport(g.cx(), []uint64{100, 5, retptr}, func(args []Value) ([]Value, error) {
		return []Value{StringValue(strings.ToUpper(args[0].Str()))}, nil
	})
	if err != nil || len(out) != 0 {
		t.Fatalf("ServeImport = %v, %v", out, err)
	}
	v, err := g.cx().Load(String, retptr)
	if err != nil || v.Str() != "HELLO" {
		t.Fatalf("result through retptr = %v, %v", v, err)
	}
}

// TestSpilledParamPath checks that errors in memory-passed parameters still name the parameter.
func TestSpilledParamPath(t *testing.T) {
	params := make([]Param, 17)
	args := make([]Value, 17)
	for i := range params {
		params[i] = Param{fmt.Sprintf("p%d", i), Char}
		args[i] = CharValue('a')
	}
	ft := Must(FuncOf(params))
	if !ft.ParamsSpilled() {
		t.Fatal("17 params not spilled")
	}
	args[16] = CharValue(0xD800)
	g := newGuest()
	_, err := ft.LowerParams(g.cx(), args)
	if !errors.Is(err, ErrInvalidChar) || !strings.Contains(err.Error(), `lower param "p16": char 0xd800`) {
		t.Fatalf("LowerParams: %v", err)
	}
	args[16] = CharValue('z')
	flat, err := ft.LowerParams(g.cx(), args)
	if err != nil || len(flat) != 1 {
		t.Fatalf("LowerParams = %v, %v", flat, err)
	}
	le.PutUint32(g.mem.buf[flat[0]+4*15:], 0x110000)
	_, err = ft.LiftParams(g.cx(), flat)
	if !errors.Is(err, ErrInvalidChar) || !strings.Contains(err.Error(), `lift param "p15": char 0x110000`) {
		t.Fatalf("LiftParams: %v", err)
	}
}
