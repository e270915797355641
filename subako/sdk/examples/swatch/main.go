// Command swatch is an ABI 1 function package whose tool paints a square of one colour as a PNG,
// writes it under /volume/tmp and answers with a resource_link to it (and, on request, the same
// image inline).
package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"strconv"

	"github.com/kobako/kobako/subako/sdk"
)

type paintIn struct {
	Color  string `json:"color" jsonschema:"description=Colour as #rrggbb.,pattern=^#[0-9a-fA-F]{6}$"`
	Size   int    `json:"size,omitempty" jsonschema:"description=Side in pixels (1 to 512; default 64).,minimum=1,maximum=512"`
	Inline bool   `json:"inline,omitempty" jsonschema:"description=Also return the image inline as base64."`
}

func (in paintIn) Validate() error {
	if _, err := parseColor(in.Color); err != nil {
		return err
	}
	if in.Size < 0 || in.Size > 512 {
		return fmt.Errorf("size must be between 1 and 512, got %d", in.Size)
	}
	return nil
}

func parseColor(s string) (color.RGBA, error) {
	if len(s) != 7 || s[0] != '#' {
		return color.RGBA{}, fmt.Errorf("color must look like #rrggbb, got %q", s)
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return color.RGBA{}, fmt.Errorf("color must look like #rrggbb, got %q", s)
	}
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}, nil
}

func paint(_ context.Context, in paintIn) (*sdk.Result, error) {
	c, _ := parseColor(in.Color) // checked by Validate
	size := in.Size
	if size == 0 {
		size = 64
	}
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encoding the PNG: %w", err)
	}
	path := fmt.Sprintf("/volume/tmp/swatch %02x%02x%02x.png", c.R, c.G, c.B)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("saving the swatch: %w", err)
	}
	link, err := sdk.VolumeLink(path, "image/png")
	if err != nil {
		return nil, err
	}
	r := sdk.TextResult(fmt.Sprintf("A %d×%d swatch of %s.", size, size, in.Color)).Add(link)
	if in.Inline {
		r.Add(sdk.Image("image/png", buf.Bytes()))
	}
	return r, nil
}

var pkg = &sdk.Package{
	Name:        "swatch",
	Description: "Paints colour swatches as PNG images.",
	Version:     "1.0.0",
	Tools: []sdk.ToolDef{
		sdk.Tool("paint", "Paint a square swatch of one colour and show it.", paint),
	},
}

func main() { pkg.Main() }
