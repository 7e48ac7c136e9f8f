package prices

import (
	"embed"
	"fmt"
	"sort"
	"strings"

	"github.com/memplan/memplan/internal/yamlx"
)

//go:embed catalogs/*.yaml
var embedded embed.FS

// DefaultCatalog is used when a workload names no catalog.
const DefaultCatalog = "current"

// EmbeddedNames lists the catalogs built into the binary.
func EmbeddedNames() []string {
	ents, _ := embedded.ReadDir("catalogs")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// Embedded loads a built-in catalog by name.
func Embedded(name string) (*Catalog, error) {
	data, err := embedded.ReadFile("catalogs/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("%w: no embedded catalog %q; embedded catalogs are %s", yamlx.ErrInput, name, strings.Join(EmbeddedNames(), ", "))
	}
	return Parse("embedded:"+name, data)
}

// EmbeddedSource returns the YAML text of a built-in catalog (for
// `memplan prices show`).
func EmbeddedSource(name string) ([]byte, error) {
	return embedded.ReadFile("catalogs/" + name + ".yaml")
}
