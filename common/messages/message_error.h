// The error of a decoder of common/messages/: the frame is not the message it should be. It names the message
// and the field ("malformed 'exit' message: field 'rank' is missing"), so a log says what the peer got wrong.
#pragma once

#include <string>
#include <string_view>

#include "common/error.h"

namespace hvd::messages {

// A frame that is not the message it should be: a field missing or of the wrong type, or another message type.
// A peer broke the protocol (a ProtocolError): the receiver drops the link, or the request, naming the field.
class MessageError : public ProtocolError {
 public:
  MessageError(std::string_view message, std::string_view field, const std::string& problem);
  const std::string& message_name() const { return message_; }
  const std::string& field() const { return field_; }

 private:
  std::string message_, field_;
};

}  // namespace hvd::messages
