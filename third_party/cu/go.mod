module gorgonia.org/cu

go 1.13

require (
	github.com/cloudflare/cfssl v0.0.0-20190808011637-b1ec8c586c2a
	github.com/cznic/cc v0.0.0-20181122101902-d673e9b70d4d
	github.com/gonum/blas v0.0.0-20181208220705-f22b278b28ac
	github.com/google/uuid v1.1.1
	github.com/gorgonia/bindgen v0.0.0-20210223094355-432cd89e7765
	github.com/kr/pretty v0.1.0
	github.com/pkg/errors v0.9.1
	github.com/stretchr/testify v1.6.1
	gonum.org/v1/gonum v0.8.2
	gorgonia.org/gorgonia v0.9.17
	gorgonia.org/tensor v0.9.20
	modernc.org/cc v1.0.1
	modernc.org/xc v1.0.0
)
