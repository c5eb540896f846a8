package table

import "testing"

func TestAdd(t *testing.T) {
	tab := Table{Caption: "c", Header: []string{"a", "b"}}
	tab.Add("1", "2")
	tab.Add("3")
	if len(tab.Rows) != 2 || tab.Rows[0][1] != "2" || len(tab.Rows[1]) != 1 {
		t.Errorf("rows %q", tab.Rows)
	}
}
