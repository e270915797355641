package instance_test

import (
	"fmt"

	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/manifest"
)

func ExampleID_Key() {
	id, err := instance.NewID("messaging.plugin", manifest.CapabilityChannel, "primary.東京")
	if err != nil {
		panic(err)
	}
	fmt.Println(id.Key())
	back, _ := instance.ParseKey(id.Key())
	fmt.Println(back.Package, back.Capability, back.Binding)
	// Output:
	// zpi1_WyJtZXNzYWdpbmcucGx1Z2luIiwiY2hhbm5lbCIsInByaW1hcnku5p2x5LqsIl0
	// messaging.plugin channel primary.東京
}
