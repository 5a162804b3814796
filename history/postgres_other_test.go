//go:build !unix

package history

import "errors"

type testServer struct{ url string }

func startPostgres() (*testServer, error) {
	return nil, errors.New("the tests start PostgreSQL on Unix systems only")
}

func (s *testServer) stop() {}
