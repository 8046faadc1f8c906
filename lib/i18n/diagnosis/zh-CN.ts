import { membershipWhen, RABBIT_CLOSES, type Language, type MembershipWords } from "./language.ts";

/** The diagnosis sentences in Simplified Chinese: the same facts as en.ts, typed by the same shape (language.ts). */

const WHEN_ZH: MembershipWords = {
  between: "在两次投递之间",
  before: (d) => `早于第一次投递 ${d}`,
  beyond: (interval) => `；略超过一个重平衡周期（${interval}），因不同主机的时钟存在偏差仍计入`,
};

/** A name set in Chinese text: a space where its Latin letters or digits meet the Chinese around it ("上的 Redis 标记在"), none where Chinese meets Chinese ("上的状态机在"). */
function spaced(name: string): string {
  return `${/^[A-Za-z0-9]/.test(name) ? " " : ""}${name}${/[A-Za-z0-9]$/.test(name) ? " " : ""}`;
}

const CHANNEL_ZH: Record<string, string> = {
  channel_inactive: "连接未注销即关闭",
  channel_expired: "120 秒无心跳",
  connection_closed: "连接已关闭",
  channel_closed: "通道已关闭",
  connection_lost: "客户端 TCP 连接意外断开",
  heartbeat_missed: "心跳超时",
};

export const zhCN: Language = {
  evidence: {
    stored_copies: (v, f) => `msgId ${v.msgId} 在 ${f.d(v.spanMs)}内被存储了 ${v.copies} 份${v.offsetMsgIds === "" ? "" : `（offsetMsgId ${v.offsetMsgIds}）`}`,
    send_failed_then_retried: (v, f) =>
      `${f.i(v.instance)} 在 ${f.t(v.ts)} 发送 ${v.msgId}${v.costMs === null ? "" : `，耗时 ${f.d(v.costMs)}后`}报告失败，但 broker 已存储该消息`,
    producer_resend_logged: (v, f) => `生产者 ${f.i(v.instance)} 在 ${f.t(v.ts)} 记录了 "resend at once"${v.msgId === null ? "" : `（${v.msgId}）`}`,
    within_send_window: (v, f) =>
      `两份副本相隔 ${f.d(v.gapMs)}，在 ${f.d(v.windowMs)}的发送重试窗口内（${v.broker === "rocketmq" ? "sendMsgTimeout × 次数" : "发布方等待确认的时长 × 次数，按诊断配置"}）`,
    beyond_send_window: (v, f) => `两份副本相隔 ${f.d(v.gapMs)}，超出 ${f.d(v.windowMs)}的发送重试窗口`,
    single_stored_copy: (v) => `轨迹中 ${v.msgId} 只有一份存储副本（offsetMsgId ${v.offsetMsgId}）`,
    copies_differ: (v) => `两次投递读取的是不同的存储副本（${v.first} 与 ${v.second}）`,
    same_copy: (v) => `两次投递读取的是同一份存储副本（${v.copy}）`,
    not_redelivered: (v, f) => `broker 在 ${f.t(v.ts)} 投递给 ${f.i(v.instance)} 时 redelivered = false：这是队列中的一份新副本，而不是重新投递`,
    first_deliveries: () => `两次投递的 retryTimes 都是 0：都不是消费重试`,
    same_msg_id: (v) => `两次投递的 msgId 相同：${v.msgId}`,
    kafka_send_retried: (v, f) =>
      `${f.i(v.instance)} 在发送窗口（${f.d(v.windowMs)}）内相隔 ${f.d(v.gapMs)} 两次发送了该键${v.failed ? "，第一次发送失败" : ""}：记录 ${v.firstMsgId} 与 ${v.secondMsgId}`,
    too_soon_for_redelivery: (v, f) =>
      `同一 message id 在第一次投递后 ${f.d(v.gapMs)} 再次到来，早于 RocketMQ 5 任何重投的可能（最短不可见时间为 ${f.d(v.minInvisibleMs)}）：这是第二份存储副本`,
    copy_without_send: (v) => `同一键的记录 ${v.msgId} 没有对应的发送，紧挨在生产者发送所报告的 ${v.sentMsgId} 之前：客户端在一次发送内部重试了`,
    different_msg_ids: (v) => `同一业务键的两次投递 msgId 不同（先 ${v.first}，后 ${v.second}）`,
    published_twice: (v, f) =>
      `被发送了两次：${v.firstMsgId} 由 ${f.i(v.firstHost)} 于 ${f.t(v.firstTs)} 发送，${v.secondMsgId} 由 ${f.i(v.secondHost)} 于 ${f.t(v.secondTs)} 发送`,
    queue_moved: (v, f) =>
      `队列 ${f.q(v.topic, v.queue)} 在 ${f.t(v.ts)} 从 ${f.i(v.from)} 转到 ${f.i(v.to)}，${v.position === "between" ? "发生在两次投递之间" : "就在第一次投递之前，当时原持有者仍持有已拉取的消息"}`,
    queue_taken_over: (v, f) =>
      `${f.i(v.from)} ${v.since === null ? "自最早采集的日志之前起" : `自 ${f.t(v.since)} 起${v.expired ? "（原始日志已过期）" : ""}`}一直持有队列 ${f.q(v.topic, v.queue)}，直到 ${f.i(v.to)} 在 ${f.t(v.ts)} 接管它（${v.position === "between" ? "发生在两次投递之间" : "就在第一次投递之前"}），当时 ${f.i(v.from)} 仍是消费组成员`,
    queue_removed: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.ts)} 释放了队列 ${f.q(v.topic, v.queue)}`,
    queue_added: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.ts)} 分配到队列 ${f.q(v.topic, v.queue)}`,
    queue_dropped_mid_consume: (v, f) =>
      `${f.i(v.instance)} 在 ${f.t(v.ts)} 丢弃了队列 ${v.queue ?? "?"}，已消费的消息未提交位点（"processQueue is dropped without process consume result"）${v.msgId === null ? "" : `，其中包括 ${v.msgId}`}`,
    group_rebalanced: (v, f) => `消费组 ${v.group ?? "?"} 在 ${f.i(v.instance)} 上于 ${f.t(v.ts)} 发生重平衡`,
    member_joined: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.ts)} 加入消费组，${membershipWhen(v, f, WHEN_ZH)}`,
    member_left: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.ts)} 正常退出消费组，${membershipWhen(v, f, WHEN_ZH)}`,
    owner_still_alive: (v, f) => `${f.i(v.instance)} 在重新投递之后的 ${f.t(v.ts)} 仍然存活`,
    channel_lost: (v, f) =>
      RABBIT_CLOSES.has(v.action)
        ? `${f.i(v.instance)} 在 ${f.t(v.ts)} 关闭（${CHANNEL_ZH[v.action]}），投递尚未确认：broker 将其重新入队`
        : `broker 在 ${f.t(v.ts)} 移除了 ${f.i(v.instance)} 的连接（${CHANNEL_ZH[v.action] ?? v.action}）`,
    same_record_other_instance: (v, f) =>
      `${f.i(v.to)} 处理了 ${f.i(v.from)} 已处理过的同一条记录（${v.queue ?? "?"}${v.offset === null ? "" : ` 偏移 ${v.offset}`}）：该偏移提交之前分区已被重新分配`,
    redelivered_while_processing: (v, f) =>
      `${f.i(v.instance)} 仍在处理该消息（直到 ${f.t(v.firstEnd)}）时，消息于 ${f.t(v.secondStart)} 再次投递给 ${f.i(v.secondInstance)}：不可见时间已到期`,
    redelivered_without_failure: (v, f) =>
      `${f.i(v.instance)} 上的消费于 ${f.t(v.firstEnd)} 无错误结束，但 ${f.d(v.gapMs)} 后消息再次到来：确认未能在不可见时间到期前生效`,
    receipt_handle_expired: (v, f) =>
      `${f.i(v.instance)} 在 ${f.t(v.ts)} 未能${v.operation === "ack" ? "确认（ack）" : "延长不可见时间"}消息 ${v.msgId}：其 receipt handle 已过期${v.status === null || v.status === "" ? "" : `（"${v.status}"）`}，broker 已让该消息重新可见`,
    no_shutdown: (v, f) => `${f.i(v.instance)} 没有记录 shutdown`,
    process_restarted: (v, f) => `${v.host} 上在 ${f.t(v.ts)} 启动了新进程 ${f.i(v.newInstance)}，取代了 ${f.i(v.oldInstance)}`,
    owner_went_silent: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.lastTs)} 之后没有任何日志`,
    redelivered_flag: (v, f) => `broker 将 ${f.t(v.ts)} 投递给 ${f.i(v.instance)} 的消息标记为 redelivered`,
    partition_lost: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.ts)} 丢失了分区 ${v.queue ?? "?"}：它被踢出了消费组`,
    consume_timed_out: (v, f) => {
      const cost = v.costMs === null ? "" : `，耗时 ${f.d(v.costMs)}`;
      switch (v.via) {
        case "trace":
          return `${f.i(v.instance)} 上的消费在 ${f.t(v.ts)} 以 TIME_OUT 结束${cost}`;
        case "expire_msg_back":
          return `${f.i(v.instance)} 在 ${f.t(v.ts)} 将超时消息发回 broker（"send expire msg back"）`;
        case "duration":
          return `${f.i(v.instance)} 上的消费超过了 consumeTimeout（${f.t(v.ts)}）${cost}`;
        case "poll_timeout":
          return `${f.i(v.instance)} 在 ${f.t(v.ts)} 超过 max.poll.interval.ms 并离开了消费组`;
        case "ack_timeout":
          return `${f.i(v.instance)} 未在消费者超时时间内确认（${f.t(v.ts)}）`;
      }
    },
    offset_reset: (v, f) => {
      const logged = v.instance === null ? "" : `（${f.i(v.instance)} 记录）`;
      const why = { offset_illegal: "因 broker 对拉取请求返回 OFFSET_ILLEGAL，", out_of_range: "因拉取位置越界（auto.offset.reset），", seek: "因应用调用 seek，", no_committed_offset: "因消费组在该分区没有已提交位点（auto.offset.reset），" };
      const queue = `消费组 ${v.group ?? "?"}${v.topic === null ? "" : ` 在 ${v.topic} 上`}的${v.reason === "offset_illegal" ? "队列" : "分区"} ${v.queue}`;
      const moved = v.fromOffset !== undefined ? `位点从 ${v.fromOffset} 回退到 ${v.toOffset}` : `位点被重置为 ${v.toOffset}`;
      return v.queue !== undefined && v.toOffset !== undefined
        ? `${queue} 在 ${f.t(v.ts)} ${v.reason === undefined ? "" : why[v.reason]}${moved}${logged}，发生在两次投递之间：此后消费过的消息被再次消费`
        : `消费组 ${v.group ?? "?"}${v.topic === null ? "" : ` 在 ${v.topic} 上`}的位点在 ${f.t(v.ts)} 被重置${v.resetTo === null ? "" : `回 ${f.t(v.resetTo)}`}${v.by === null ? (v.instance === null ? "" : `（${f.i(v.instance)} 记录）`) : `（由 ${v.by} 发起）`}，发生在两次投递之间：此后消费过的消息被再次消费`;
    },
    client_id_shared: (v, f) =>
      `${v.host} 上的两个进程以同一个 clientId ${v.clientId} 连接 broker（来自 ${v.remotes[0]} 和 ${v.remotes[1]}，${v.expired ? `分别自 ${f.t(v.since ?? v.ts)} 和 ${f.t(v.ts)} 起保持连接，原始日志已过期` : `第二个在 ${f.t(v.ts)}`}）：broker 把它们当作一个成员，两者分到相同的队列并消费了相同的消息（${f.i(v.instances[0])} 和 ${f.i(v.instances[1])}）`,
    broadcasting_group: (v, f) =>
      `消费组 ${v.group} 以 BROADCASTING（广播）模式消费（${f.i(v.instance)} 在 ${f.t(v.ts)} 以该模式${v.inSpans ? "消费（据其 span）" : v.startedWith ? "启动" : "连接"}${v.expired ? "，此后一直在线，原始日志已过期" : ""}）：每个实例都会收到每条消息，另一实例上的第二次消费是设计如此`,
    poll_interval_exceeded: (v, f) =>
      `${f.i(v.instance)} 两次 poll 之间的间隔超过了 max.poll.interval.ms${v.exceededMs === null ? "" : `（超出 ${f.d(v.exceededMs)}）`}，被移出消费组（记录于 ${f.t(v.ts)}）：它的分区交给了其他成员`,
    offset_commit_failed: (v, f) =>
      `${f.i(v.instance)} ${v.queue === null ? "" : `对 ${v.queue}${v.offset === null ? "" : ` 位点 ${v.offset}`} `}的位点提交在 ${f.t(v.ts)} 被拒绝：它已不是消费组成员，已处理的记录没有提交`,
    consume_failed: (v, f) => `${f.i(v.instance)} 上的消费在 ${f.t(v.ts)} 失败（${v.contextName ?? "失败"}）`,
    effect_before_failure: (v, f) => `${f.i(v.instance)} 上的业务副作用在 ${f.t(v.effectTs)} 已提交，随后消费在 ${f.t(v.failTs)} 失败`,
    retry_delivery: (v) => `第二次投递是第 ${v.to} 次重试；第一次${v.from === 0 ? "是首次投递" : `是第 ${v.from} 次重试`}`,
    retry_on_schedule: (v, f) => `它在 ${f.d(v.gapMs)}后到达，符合第 ${v.retryTimes} 次重试的延迟（${f.d(v.expectedMs)}）`,
    retry_after_success: (v, f) => `${f.i(v.instance)} 报告消费成功，但之后仍有重试`,
    inherited: (v, f) => `这是 ${v.delivery} 的重试，${v.delivery} 失败且没有副作用；而 ${v.delivery} 本身就是重复投递（${f.cause(v.cause)}）`,
    retry_chains_forked: (v, f) => `两次投递都源自同一副本（第 ${v.retryTimes} 次重试），${v.first} 和 ${v.second} 都消费了它：重试链在那里分叉（${f.cause(v.cause)}）`,
    consumed_directly: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.ts)} 直接消费了该消息（consumeMessageDirectly：控制台或死信重发）`,
    dlq_topic: (v) => `该副本来自死信主题 ${v.topic}`,
    republished_to_retry: (v, f) => `${v.producerGroup ?? "某个生产者"} 在 ${f.t(v.ts)} 将其重新发送到 ${v.topic}`,
    retries_exhausted: (v) => `上一次尝试是第 ${v.retryTimes} 次重试（maxReconsumeTimes ${v.max}）且失败：消息进入了死信队列`,
    dead_lettered: (v, f) =>
      `该副本${v.ts === null ? "" : `于 ${f.t(v.ts)} `}曾${v.queue === null ? "" : `从 ${v.queue} `}进入死信${v.reason === null ? "" : `（${v.reason}${v.count === null ? "" : `，${v.count} 次`}）`}，之后又被送回（x-death）`,
    shovelled: (v) => `shovel ${v.shovel ?? "?"} 将其从 ${v.from ?? "?"} 移到了 ${v.to ?? "?"}（x-shovelled）`,
    delivery_without_trace: (v, f) => `${f.t(v.ts)} 投递给 ${f.i(v.instance)} 的消息没有消费轨迹，而该消费组的其他投递都有`,
    delay_message: (v) => `${v.msgId} 是延时消息（${v.msgType}）`,
    tx_commit: (v, f) => `${v.msgId} 在 ${f.t(v.ts)} ${v.fromCheck ? "由事务回查" : "由生产者"}提交`,
    tx_checkback: (v, f) => `broker 在 ${f.t(v.ts)} 回查了事务 ${v.msgId}`,
    dedup_hit: (v, f) => `${f.i(v.instance)} 上的${spaced(f.layer(v.layer))}在 ${f.t(v.ts)} 命中：该投递被跳过`,
    dedup_passed: (v, f) => `投递给 ${f.i(v.instance)} 的消息在 ${f.t(v.ts)} 通过了${spaced(f.layers(v.layers))}`,
    executed_twice: (v, f) => `业务执行了两次：${f.i(v.firstInstance)} 于 ${f.t(v.firstTs)}，${f.i(v.secondInstance)} 于 ${f.t(v.secondTs)}`,
    second_failed: (v, f) => `${f.i(v.instance)} 上重复的业务执行在 ${f.t(v.ts)} 失败`,
    dedup_keys_differ: (v) => `两次尝试使用了不同的去重键（${v.first} 与 ${v.second}）`,
    dedup_key_is_msg_id: (v) => `去重键 ${v.dedupKey} 包含的是 msgId ${v.msgId}，而不是业务键`,
    new_msg_id_passed: (v, f) => `新的 msgId 在第一个标记仍有效时通过了${spaced(f.layer(v.layer))}：标记是按消息而不是按业务设置的`,
    gap_over_ttl: (v, f) => `${spaced(f.layer(v.layer)).trimStart()}的有效期是 ${f.d(v.ttlMs)}；第二次检查在第一次之后 ${f.d(v.gapMs)}才到来`,
    gap_within_ttl: (v, f) => `第二次检查在第一次之后 ${f.d(v.gapMs)}，仍在${spaced(f.layer(v.layer))}的 ${f.d(v.ttlMs)}有效期内：标记丢失了`,
    concurrent_passes: (v, f) => `${f.i(v.firstInstance)} 和 ${f.i(v.secondInstance)} 相隔 ${f.d(v.gapMs)}都通过了${spaced(f.layer(v.layer))}`,
    acked_before_effect: (v, f) => `${f.i(v.instance)} 在 ${f.t(v.ackTs)} 已确认消费，而业务在 ${f.t(v.effectTs)} 才提交`,
    only_volatile_layers: (v, f) => `只有${spaced(f.layers(v.layers))}在防重：标记之后没有持久化的防线（数据库唯一键、状态机）`,
    written_twice: (v, f) =>
      `业务表（探针 ${v.probe}）中该业务键有 ${v.rows} 行：${f.i(v.firstInstance)} 于 ${f.t(v.firstTs)} 写入，${f.i(v.secondInstance)} 于 ${f.t(v.secondTs)} 写入，相隔 ${f.d(v.gapMs)}（数据库时钟）`,
    written_once: (v, f) => `业务表（探针 ${v.probe}）中该业务键只有一行，由 ${f.i(v.instance)} 于 ${f.t(v.ts)} 写入（数据库时钟）：业务只生效了一次`,
    not_written: (v, f) => `业务表（探针 ${v.probe}）中的 ${v.rows} 行都不是 ${f.t(v.ts)} 投递给 ${f.i(v.instance)} 的那次写入的：每一行都属于另一次投递`,
    marker_left: (v, f) =>
      v.how === "failed"
        ? `${f.i(v.instance)} 上的尝试在 ${f.t(v.ts)} 失败，且没有删除${spaced(f.layer(v.layer))}（没有 "released"）`
        : v.how === "released_late"
          ? `${f.i(v.instance)} 上的尝试持有${spaced(f.layer(v.layer))}直到 ${f.t(v.ts)}：它失败后才删除标记，而另一次投递已被跳过`
          : `${f.i(v.instance)} 上的尝试在 ${f.t(v.ts)} 通过了${spaced(f.layer(v.layer))}但没有完成，标记一直保留`,
    retry_skipped: (v, f) => `${f.i(v.instance)} 上的${spaced(f.layer(v.layer))}在 ${f.t(v.ts)} 跳过了该投递`,
    never_executed: () => `该业务键在这个消费组中从未执行过业务`,
    reordered: (v) =>
      v.reason === "retry_times"
        ? `按时钟两次投递的顺序相反；由 retryTimes 决定先后`
        : v.reason === "failure_first"
          ? `按时钟两次投递的顺序相反；失败的尝试必然发生在它引起的重投之前`
          : `按时钟两次投递的顺序相反；命中必然发生在设置标记的通过之后`,
  },
  missing: {
    no_pub_trace: (m) => `msgId ${m.msgId ?? "?"} 没有 Pub 轨迹：生产者未开启消息轨迹？`,
    no_consume_trace: (m) => `消费组 ${m.group ?? "?"} 没有消费轨迹：消费者未开启消息轨迹？`,
    no_dedup_log: (m) => `消费组 ${m.group ?? "?"} 没有去重日志：无法判断重复是否被拦截`,
    no_dedup_line: (m, f) => `${m.ts === undefined ? "" : `${f.t(m.ts)} `}投递给 ${f.i(m.instance ?? null)} 的消息没有去重日志`,
    no_client_log: (m, f) => `实例 ${f.i(m.instance ?? null)} 没有客户端日志`,
    no_broker_log: (m) => `消费组 ${m.group ?? "?"} 没有 broker 日志：无法看到消失的消费者`,
    host_only_identity: (m, f) => `${f.i(m.instance ?? null)} 上的实例只有主机名：同一主机上的两个进程无法区分`,
    service_only_identity: (m, f) => `${f.i(m.instance ?? null)} 的 span 只带服务名：它的各个副本无法区分；请在 resource 中设置 k8s.pod.name，或 host.name 与 process.pid`,
    no_consume_end: (m, f) => `${m.ts === undefined ? "" : `${f.t(m.ts)} `}投递给 ${f.i(m.instance ?? null)} 的消息没有 SubAfter：轨迹丢失，或进程已退出`,
    no_msg_id: (m) => `消费组 ${m.group ?? "?"} 的投递没有 msgId`,
    no_event_exchange: (m, f) => `两次投递前后没有 ${f.i(m.instance ?? null)} 的通道或连接事件：请启用 rabbitmq_event_exchange（或接入 RabbitMQ 服务端日志），才能看到消费者通道的关闭`,
  },
  advice: {
    marker_ttl_short: (v, f) =>
      `Redis 标记的 TTL ${f.d(v.ttlMs)}短于 ${v.sharePct}% 的重复投递间隔（最长 ${f.d(v.longestGapMs)}）；请将其调大到超过最长间隔${v.peakConsumeMs === null ? "" : `，并至少为峰值处理时间（${f.d(v.peakConsumeMs)}）的 10 倍`}，或依赖数据库唯一键`,
    non_atomic_check: (v) => `${v.count} 次泄漏来自两个实例同时通过检查：请使用原子的 "SET key NX EX"（而不是先 GET 再 SET），或数据库唯一键`,
    key_not_business_key: (v) => `${v.count} 次重复因去重键不是业务键而通过（新的 msgId 产生新标记）：请用业务键作为标记`,
    marker_not_released: (v) => `${v.count} 条消息丢失：失败的尝试留下了标记，重试被跳过；请在失败时删除标记，或在副作用提交后再写标记`,
    async_ack: (v) => `${v.count} 次泄漏来自业务提交前就确认了消费：请在副作用持久化后再返回 CONSUME_SUCCESS`,
    no_durable_layer: (v) => `${v.count} 次泄漏只经过了易失的防重层：请增加在业务事务中写入的数据库唯一键`,
    rebalance_duplicates: (v) =>
      `${v.count} 次重复（${v.sharePct}%）发生在重平衡之后${v.perHour === null ? "" : `（每小时 ${v.perHour} 次）`}：避免不必要的重启和扩缩容，用 shutdown() 正常关闭消费者以持久化位点`,
    ack_lost_duplicates: (v) => `${v.count} 次重复发生在消费者未经 shutdown 就消失之后：排查其退出原因（OOM、崩溃、网络）并正常关闭`,
    consume_timeouts: (v, f) =>
      `${v.count} 次重复来自消费超过 consumeTimeout${v.peakConsumeMs === null ? "" : `（峰值 ${f.d(v.peakConsumeMs)}）`}：请加快消费或调大 consumeTimeout`,
    shared_client_ids: (v) =>
      `${v.count} 次重复来自共用一个 clientId 的两个进程：请为每个消费进程设置唯一的 instanceName（4.9.0 之前的客户端在 host 网络的容器里默认都是 ip@1）`,
    offset_rollbacks: (v) =>
      `${v.count} 次重复来自被回退的消费位点（resetOffsetByTime、broker 恢复、消费组重建）：请查明是谁重置的，并让去重标记的保留时间长于一次重置可能重放的范围`,
    commit_failures: (v) =>
      `${v.count} 次重复来自超过 max.poll.interval.ms、位点提交被拒绝的消费者：请调小 max.poll.records、加快处理（或转交处理并暂停分区），或调大 max.poll.interval.ms`,
    producer_retries: (v) => `${v.count} 次重复是发送超时后的生产者重试：请检查 broker 延迟；去重键必须是两份副本共有的 UNIQ_KEY 或业务键`,
    upstream_resends: (v) => `${v.count} 次重复来自上游两次调用生产者：请按业务键而不是 msgId 去重，或让上游幂等`,
    dlq_replays: (v) => `${v.count} 次重复是死信重放：重发前请确认最初的尝试确实没有产生副作用`,
    double_commits: (v) => `${v.count} 条事务消息通过回查被提交了两次：请让本地事务回查的应答幂等`,
    delayed_double_writes: (v) => `${v.count} 条延时消息被 broker 写入了两次：延时主题的去重请使用 UNIQ_KEY 或业务键`,
    no_dedup_log: (v) => `${v.count} 次重复的结果未知：请接入去重日志（docs/dedup-log.md）以判断是否被拦截`,
  },
  cause: {
    producer_retry: "生产者重试",
    upstream_resend: "上游重复发送",
    rebalance: "重平衡",
    ack_lost: "确认/位点丢失",
    consume_timeout: "消费超时",
    commit_failed: "位点提交失败",
    offset_rollback: "位点回滚",
    shared_client_id: "clientId 重复",
    broadcast_consumption: "广播消费（设计如此）",
    invisible_timeout: "不可见时间到期",
    retry_after_failure: "失败后重试",
    dlq_replay: "死信重放",
    delayed_double_write: "延时消息重复写入",
    transaction_checkback: "事务回查",
    unknown: "原因未知",
  },
  outcome: { caught: "已拦截", leaked: "已泄漏", unknown: "结果未知" },
  defect: {
    dedup_key_not_business_key: "去重键不是业务键",
    marker_expired: "标记已过期",
    non_atomic_check: "检查不是原子操作",
    marker_not_released: "标记未释放",
    async_ack: "业务完成前已确认",
    no_durable_layer: "缺少持久化防重层",
  },
  gapClass: { ms: "相隔毫秒级", seconds: "相隔秒级", minutes: "相隔分钟级" },
  layer: { bloom: "布隆过滤器", redis: "Redis 标记", db: "数据库唯一键", state: "状态机" },
  list: (names) => names.join("、"),
  separator: "；",
  coarse: "（broker 时间只精确到秒）",
  tolerant: (skew) => `（在 ±${skew}的时钟容差内）`,
  receipt: "（时间为采集器的接收时间：firehose 消息本身不带时间）",
  unrecognisedNear: (lines, sources) => `；但 ${sources} 中有 ${lines.toLocaleString("zh-CN")} 行被跳过的日志疑似相关却未被识别：见“采集”页，或使用模式文件`,
  unknownInstance: "未知实例",
  clockNote: (skew) => `两台主机的时钟相差约 ${skew}`,
  pair: (p, f) =>
    `消费组 ${p.group ?? "?"}${p.topic === null ? "" : `（主题 ${p.topic}）`}：${p.first.id}（${f.i(p.first.instance)}，${f.t(p.first.start)}）→ ${p.second.id}（${f.i(p.second.instance)}，${f.t(p.second.start)}）`,
  verdict: (v, f, names) => {
    const outcome = v.outcome === "caught" ? (v.layer === undefined ? names.outcome.caught : `被${spaced(f.layer(v.layer))}拦截`) : v.outcome === "leaked" ? `已泄漏${v.defect === undefined ? "" : `（${names.defect[v.defect]}）`}` : names.outcome.unknown;
    const clocks = v.clockSkewMs > 0 ? `（按时钟两者顺序相反：${names.clockNote(f.d(v.clockSkewMs))}）` : "";
    return `${names.cause[v.cause]}（置信度 ${v.confidence.toFixed(2)}），${outcome}；相隔 ${f.d(v.gapMs)}${clocks}`;
  },
};
