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

func TestCells(t *testing.T) {
	p := func(n int64) *int64 { return &n }
	for _, tc := range []struct{ got, want string }{
		{Count(0), "0"},
		{Count(12), "12"},
		{Count(999), "999"},
		{Count(1000), "1,000"},
		{Count(1048576), "1,048,576"},
		{Count(-1234567), "-1,234,567"},
		{Count(-999), "-999"},
		{OptCount(nil), "—"},
		{OptCount(p(28731)), "28,731"},
		{Ratio(p(66), p(32)), "2.06"},
		{Ratio(p(1), p(3)), "0.33"},
		{Ratio(p(5), p(0)), "—"},
		{Ratio(nil, p(3)), "—"},
		{Ratio(p(3), nil), "—"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
