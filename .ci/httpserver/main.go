// Command httpserver is the loopback HTTPS server .ci/difftest-http runs guests against: it
// makes a throw-away certificate for 127.0.0.1, writes it (PEM) and its port to the files
// named by -cert and -port, and serves until -for has passed (or it is killed).
//
//	/hello      "hello", with x-seen: METHOD PATH and x-echo: the request's x-test
//	/fields     201, the request's method, path, x-test and x-multi values and body length as
//	            text, with the response header x-reply twice (one, two)
//	/echo       the request body's method, length and content-type as JSON
//	/redirect   302 to ?to=
//	/big?n=N    N bytes
//	/status?c=C an empty answer with status C
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	certFile := flag.String("cert", "cert.pem", "where to write the certificate")
	portFile := flag.String("port", "port", "where to write the port")
	lifetime := flag.Duration("for", 5*time.Minute, "how long to serve")
	flag.Parse()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kobako difftest"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		log.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Seen", r.Method+" "+r.URL.RequestURI())
		if v := r.Header.Get("X-Test"); v != "" {
			w.Header().Set("X-Echo", v)
		}
		io.WriteString(w, "hello")
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		json.NewEncoder(w).Encode(map[string]any{"method": r.Method, "length": n, "type": r.Header.Get("Content-Type")})
	})
	mux.HandleFunc("/fields", func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		w.Header().Add("X-Reply", "one")
		w.Header().Add("X-Reply", "two")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, "%s %s x-test=%q x-multi=%q body=%d", r.Method, r.URL.RequestURI(), r.Header.Get("X-Test"),
			r.Header.Values("X-Multi"), n)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Write(make([]byte, max(n, 0)))
	})
	mux.HandleFunc("/status", func(w http.ResponseWriter, r *http.Request) {
		c, _ := strconv.Atoi(r.URL.Query().Get("c"))
		w.WriteHeader(c)
	})
	srv := &http.Server{Handler: mux, TLSConfig: &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}}
	if err := os.WriteFile(*portFile, []byte(strconv.Itoa(l.Addr().(*net.TCPAddr).Port)), 0o644); err != nil {
		log.Fatal(err)
	}
	time.AfterFunc(*lifetime, func() { os.Exit(0) })
	log.Fatal(srv.ServeTLS(l, "", ""))
}
