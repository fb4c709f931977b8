// Command fakeyookassa serves the fake YooKassa (payments/yookassa/fake) for
// demos: point the gateway's payments.yookassa.base_url at it.
package main

import (
	"flag"
	"log"
	"net/http"
	"time"

	"github.com/shlyuz/shlyuz/payments/yookassa/fake"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8090", "address to listen on")
	shop := flag.String("shop", "demo-shop", "shopId the gateway authenticates with")
	secret := flag.String("secret", "demo-secret", "secret key the gateway authenticates with")
	notify := flag.String("notify", "http://127.0.0.1:8080/payments/yookassa/notify", "the gateway's notification URL")
	receipts := flag.Bool("require-receipts", true, "refuse a payment or refund without a 54-FZ receipt, as a shop with YooKassa's receipts on does")
	flag.Parse()
	f := fake.New(*shop, *secret)
	f.RequireReceipts = *receipts
	f.SetNotifyURL(*notify)
	log.Printf("fake YooKassa on http://%s (shop %s), notifications to %s", *listen, *shop, *notify)
	srv := &http.Server{Addr: *listen, Handler: f, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.ListenAndServe())
}
