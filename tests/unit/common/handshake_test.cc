#include "common/handshake.h"

#include <doctest/doctest.h>

#include "common/error.h"

using namespace hvd;

TEST_CASE("client and server with the same secret agree on a session key") {
  HandshakeServer server("secret");
  HandshakeClient client("secret");
  auto proof = client.answer(server.hello());
  client.verify_server(server.verify_client(proof));
  CHECK(client.session_key() == server.session_key());
  CHECK(client.session_key().size() == 32);
}

TEST_CASE("each connection gets its own session key") {
  HandshakeServer s1("secret"), s2("secret");
  HandshakeClient c1("secret"), c2("secret");
  c1.verify_server(s1.verify_client(c1.answer(s1.hello())));
  c2.verify_server(s2.verify_client(c2.answer(s2.hello())));
  CHECK(c1.session_key() != c2.session_key());
}

TEST_CASE("a client with the wrong secret is refused") {
  HandshakeServer server("secret");
  HandshakeClient client("guess");
  CHECK_THROWS_AS(server.verify_client(client.answer(server.hello())), ProtocolError);
}

TEST_CASE("a server with the wrong secret is refused by the client") {
  HandshakeServer server("impostor");
  HandshakeClient client("secret");
  auto proof = client.answer(server.hello());
  // The impostor cannot verify the client, and a proof it makes up fails on the client.
  CHECK_THROWS_AS(server.verify_client(proof), ProtocolError);
  CHECK_THROWS_AS(client.verify_server(std::string(kServerProofSize, 'x')), ProtocolError);
}

TEST_CASE("a replayed client proof fails against a new server nonce") {
  HandshakeServer first("secret");
  HandshakeClient client("secret");
  auto proof = client.answer(first.hello());
  first.verify_client(proof);
  HandshakeServer second("secret");
  second.hello();
  CHECK_THROWS_AS(second.verify_client(proof), ProtocolError);
}

TEST_CASE("a greeting that is not hvd's is refused") {
  HandshakeClient client("secret");
  CHECK_THROWS_AS(client.answer(std::string(kServerHelloSize, 'G')), ProtocolError);
  CHECK_THROWS_AS(client.answer("HVD1short"), ProtocolError);
}
