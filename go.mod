module github.com/shlyuz/shlyuz

go 1.26
