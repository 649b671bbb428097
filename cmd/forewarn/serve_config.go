package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

// notConfigKeys are the flags of serve that a --config file cannot set.
var notConfigKeys = map[string]bool{"config": true, "help": true}

// loadServeConfig reads the YAML file at path, a mapping of serve's flag
// names to values ("data-dir: /var/lib/forewarn", "dev: true"), into the
// flags of cmd that the command line did not give. An unknown key, a key
// given twice, or a value the flag refuses is an error naming the file, the
// line and the key; the flags may then be half set, and serve does not
// start. Flags set from the environment (applyServeEnv, called first)
// count as given.
func loadServeConfig(path string, cmd *cobra.Command) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("--config %s: %w", path, oneLine(err))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 || doc.Content[0].Tag == "!!null" {
		return nil // an empty file, or only comments
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("--config %s:%d: want a mapping of serve's flag names to values, such as \"dev: true\"", path, root.Line)
	}
	given := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, value := root.Content[i], root.Content[i+1]
		if err := setConfigKey(cmd, given, key, value); err != nil {
			return fmt.Errorf("--config %s:%d: %w", path, key.Line, err)
		}
	}
	return nil
}

// setConfigKey sets the flag named by key to value, unless the command line
// gave it.
func setConfigKey(cmd *cobra.Command, given map[string]bool, key, value *yaml.Node) error {
	name := key.Value
	flag := cmd.Flags().Lookup(name)
	switch {
	case key.Kind != yaml.ScalarNode:
		return fmt.Errorf("a key must be a flag name")
	case flag == nil || notConfigKeys[name]:
		return fmt.Errorf("unknown key %q: the keys are serve's flag names, without dashes (see forewarn serve --help)", name)
	case given[name]:
		return fmt.Errorf("key %q is given twice", name)
	case value.Kind != yaml.ScalarNode:
		return fmt.Errorf("%s: want a single value, not a list or a mapping", name)
	case value.Tag == "!!null":
		return fmt.Errorf("%s: no value", name)
	}
	given[name] = true
	if flag.Changed {
		return nil // the command line or the environment wins
	}
	if err := flag.Value.Set(value.Value); err != nil {
		return fmt.Errorf("%s: invalid value %q: %v", name, value.Value, err)
	}
	flag.Changed = true // as if given: --dev's defaults do not override it
	return nil
}
