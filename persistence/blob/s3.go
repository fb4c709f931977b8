package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	shlyuz "github.com/shlyuz/shlyuz"
)

// S3Config names an S3-compatible bucket (AWS S3, Yandex Object Storage,
// MinIO, Ceph): the files of a cluster, shared by its nodes.
type S3Config struct {
	Endpoint  string // host[:port], no scheme
	Bucket    string
	Region    string
	AccessKey string
	SecretKey string
	Prefix    string // prepended to every key ("videos/")
	Insecure  bool   // plain http (a local MinIO)
}

// S3 is a shlyuz.BlobStore in an S3-compatible bucket, through minio-go.
type S3 struct {
	c      *minio.Client
	bucket string
	prefix string
}

var _ shlyuz.BlobStore = (*S3)(nil)

// NewS3 connects to the bucket, creating it when it does not exist.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	if cfg.Endpoint == "" || cfg.Bucket == "" {
		return nil, errors.New("blob: s3 needs an endpoint and a bucket")
	}
	c, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:       !cfg.Insecure,
		Region:       cfg.Region,
		BucketLookup: minio.BucketLookupPath,
	})
	if err != nil {
		return nil, fmt.Errorf("blob: s3: %w", err)
	}
	ok, err := c.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("blob: s3 bucket %s: %w", cfg.Bucket, err)
	}
	if !ok {
		if err := c.MakeBucket(ctx, cfg.Bucket, minio.MakeBucketOptions{Region: cfg.Region}); err != nil {
			return nil, fmt.Errorf("blob: s3 make bucket %s: %w", cfg.Bucket, err)
		}
	}
	return &S3{c: c, bucket: cfg.Bucket, prefix: cfg.Prefix}, nil
}

func (s *S3) key(k string) (string, error) {
	if k == "" || strings.Contains(k, "..") {
		return "", fmt.Errorf("blob: bad key %q", k)
	}
	return s.prefix + k, nil
}

// Put uploads the file (its length is known for a bytes or strings reader).
func (s *S3) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	k, err := s.key(key)
	if err != nil {
		return 0, err
	}
	size := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok {
		size = int64(l.Len())
	}
	info, err := s.c.PutObject(ctx, s.bucket, k, r, size, minio.PutObjectOptions{ContentType: "video/mp4"})
	if err != nil {
		return 0, fmt.Errorf("blob: s3 put %s: %w", key, err)
	}
	return info.Size, nil
}

// Get reads n bytes from off (n < 0: to the end) with a ranged GET.
func (s *S3) Get(ctx context.Context, key string, off, n int64) (io.ReadCloser, int64, error) {
	k, err := s.key(key)
	if err != nil {
		return nil, 0, err
	}
	st, err := s.c.StatObject(ctx, s.bucket, k, minio.StatObjectOptions{})
	if err != nil {
		if minio.ToErrorResponse(err).Code == "NoSuchKey" {
			return nil, 0, fmt.Errorf("blob: %s: %w", key, shlyuz.ErrNoRows)
		}
		return nil, 0, fmt.Errorf("blob: s3 stat %s: %w", key, err)
	}
	size := st.Size
	if n < 0 || off+n > size {
		n = size - off
	}
	if n <= 0 {
		return io.NopCloser(strings.NewReader("")), size, nil
	}
	opts := minio.GetObjectOptions{}
	if err := opts.SetRange(off, off+n-1); err != nil {
		return nil, 0, err
	}
	obj, err := s.c.GetObject(ctx, s.bucket, k, opts)
	if err != nil {
		return nil, 0, fmt.Errorf("blob: s3 get %s: %w", key, err)
	}
	return obj, size, nil
}

// Delete removes the object; an absent one is no error.
func (s *S3) Delete(ctx context.Context, key string) error {
	k, err := s.key(key)
	if err != nil {
		return err
	}
	if err := s.c.RemoveObject(ctx, s.bucket, k, minio.RemoveObjectOptions{}); err != nil && minio.ToErrorResponse(err).Code != "NoSuchKey" {
		return fmt.Errorf("blob: s3 delete %s: %w", key, err)
	}
	return nil
}
