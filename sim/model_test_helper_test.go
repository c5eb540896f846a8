package sim

import "testing"

// testModel is ModelByKey for tests: an unknown key fails the test.
func testModel(t testing.TB, key string) Model {
	t.Helper()
	m, err := ModelByKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
