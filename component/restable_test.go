package component_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/kobako/kobako/abi"
	"github.com/kobako/kobako/component"
)

func TestResourceTable(t *testing.T) {
	tab := component.NewResourceTable(4)
	a, err := tab.Push("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := component.PushOwn(tab, &blob{size: 7})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tab.PushChild("child of a", a)
	if err != nil {
		t.Fatal(err)
	}
	if a == 0 || a == b.Rep || a == c || b.Rep == c {
		t.Fatalf("reps %d, %d, %d: want distinct and non-zero", a, b.Rep, c)
	}
	if got, err := component.GetOwn(tab, b); err != nil || got.size != 7 {
		t.Fatalf("GetOwn = %v, %v", got, err)
	}
	if got, err := component.GetBorrow(tab, abi.Borrow[*blob]{Rep: b.Rep}); err != nil || got.size != 7 {
		t.Fatalf("GetBorrow = %v, %v", got, err)
	}
	if got, err := component.GetAs[string](tab, a); err != nil || got != "a" {
		t.Fatalf("GetAs = %q, %v", got, err)
	}
	if _, err := tab.Delete(a); !errors.Is(err, component.ErrResourceHasChildren) {
		t.Fatalf("delete a parent with a live child: %v", err)
	}
	if v, err := tab.Delete(c); err != nil || v != "child of a" {
		t.Fatalf("delete child = %v, %v", v, err)
	}
	if _, err := tab.Delete(a); err != nil {
		t.Fatalf("delete a parent without children: %v", err)
	}
	if tab.Len() != 1 {
		t.Fatalf("Len = %d, want 1", tab.Len())
	}
	p, _ := tab.Push("p")
	if _, err := tab.PushChild("q", p); err != nil {
		t.Fatal(err)
	}
	got := tab.Drain()
	if len(got) != 3 || slices.Index(got, any("q")) > slices.Index(got, any("p")) {
		t.Fatalf("Drain = %v: want every value, children before parents", got)
	}
	if tab.Len() != 0 {
		t.Fatalf("Len after Drain = %d", tab.Len())
	}
}

func TestResourceTable_Errors(t *testing.T) {
	tab := component.NewResourceTable(2)
	a, _ := tab.Push(1)
	if _, err := tab.Push(2); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		run  func() error
		want error
	}{
		{"over capacity", func() error { _, err := tab.Push(3); return err }, component.ErrResourceLimit},
		{"rep 0", func() error { _, err := tab.Get(0); return err }, component.ErrResourceNotFound},
		{"unknown rep", func() error { _, err := tab.Get(99); return err }, component.ErrResourceNotFound},
		{"child of unknown", func() error { _, err := tab.PushChild(4, 77); return err }, component.ErrResourceNotFound},
		{"wrong Go type", func() error { _, err := component.GetAs[string](tab, a); return err }, component.ErrResourceNotFound},
		{"wrong resource", func() error { _, err := component.GetOwn(tab, abi.Own[*blob]{Rep: a}); return err }, component.ErrResourceNotFound},
		{"delete twice", func() error {
			if _, err := tab.Delete(a); err != nil {
				return err
			}
			_, err := tab.Delete(a)
			return err
		}, component.ErrResourceNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run(); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}
