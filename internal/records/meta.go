package records

import "github.com/forewarn/forewarn"

// CheckMetaKey refuses a key that a store's PutMeta may not set: an empty
// one, or reserved, the store's own key for its schema version ("" if it
// keeps none among the settings).
func CheckMetaKey(key, reserved string) error {
	if key == "" {
		return forewarn.Errorf(forewarn.ErrInvalid, "meta key is empty")
	}
	if reserved != "" && key == reserved {
		return forewarn.Errorf(forewarn.ErrInvalid, "meta key %q is reserved", key)
	}
	return nil
}
