package dev.courier.replay;

import java.util.List;
import java.util.stream.Collectors;

/** A reset refused because the group has live members (they would overwrite the new offsets). */
public final class GroupActiveException extends IllegalStateException {

  private final transient List<GroupView.Member> members;

  public GroupActiveException(String group, String state, List<GroupView.Member> members) {
    super(
        "group "
            + group
            + " is "
            + state
            + " with "
            + members.size()
            + " active member(s); stop them first: "
            + members.stream()
                .map(m -> m.consumerId() + " (" + m.clientId() + " on " + m.host() + ")")
                .collect(Collectors.joining(", ")));
    this.members = List.copyOf(members);
  }

  public List<GroupView.Member> members() {
    return members;
  }
}
