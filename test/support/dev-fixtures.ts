/** Fixed paths standing in for the dev control plane's PKI, for unit tests of what is rendered from it. */
export const fakePki = {
  caCert: "/pki/ca.crt",
  caKey: "/pki/ca.key",
  servingCert: "/pki/apiserver.crt",
  servingKey: "/pki/apiserver.key",
  adminCert: "/pki/admin.crt",
  adminKey: "/pki/admin.key",
  serviceAccountKey: "/pki/sa.key",
  serviceAccountPub: "/pki/sa.pub",
  etcdCaCert: "/pki/etcd-ca.crt",
  etcdCaKey: "/pki/etcd-ca.key",
  etcdServerCert: "/pki/etcd-server.crt",
  etcdServerKey: "/pki/etcd-server.key",
  etcdClientCert: "/pki/apiserver-etcd-client.crt",
  etcdClientKey: "/pki/apiserver-etcd-client.key",
};
