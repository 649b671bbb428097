// Package deps pins the modules the project is about to use; removed once they are imported.
package deps

import (
	_ "github.com/google/uuid"
	_ "github.com/jonboulle/clockwork"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/spf13/cobra"
	_ "go.etcd.io/bbolt"
	_ "golang.org/x/time/rate"
	_ "gopkg.in/yaml.v3"
)
