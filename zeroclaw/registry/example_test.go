package registry_test

import (
	"fmt"

	"github.com/kobako/kobako/zeroclaw/registry"
)

func ExampleIndex_Resolve() {
	ix, err := registry.ParseIndex([]byte(`{"plugins": [
		{"name": "team-calendar", "version": "0.1.0", "description": "Schedule meetings", "url": "team-calendar-0.1.0.zip"},
		{"name": "team-calendar", "version": "0.2.0", "description": "Schedule meetings", "url": "team-calendar-0.2.0.zip"}
	]}`))
	if err != nil {
		panic(err)
	}
	for _, spec := range []string{"team-calendar", "team-calendar@0.1.0"} {
		s, _ := registry.ParseSpec(spec)
		e, _ := ix.Resolve(s)
		fmt.Println(spec, "->", e.URL)
	}
	fmt.Println(len(ix.Search("MEETINGS")), "matches")
	// Output:
	// team-calendar -> team-calendar-0.2.0.zip
	// team-calendar@0.1.0 -> team-calendar-0.1.0.zip
	// 2 matches
}
