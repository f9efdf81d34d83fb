from gaji.text.select import keys, relevant_sentences


def test_relevant_sentences_keep_order_and_mark_gaps():
    text = "A is here. B is there. The capital is Seoul. D is last."
    out, cut = relevant_sentences(text, {"capital", "seoul"}, 30)
    assert not cut and out.startswith("…") and "The capital is Seoul." in out


def test_a_passage_within_the_room_is_kept_whole():
    text = "A is here. B is there."
    assert relevant_sentences(text, {"nothing"}, 100) == (text, False)


def test_korean_keys_match_a_stem_across_particles():
    assert keys("감독은 누구인가") & keys("그 영화의 감독이 말했다") == {"감독"}


def test_korean_passage_keeps_the_sentence_naming_the_question_words():
    text = ("서울은 한국의 수도이다. 부산은 항구 도시이다. 세종대왕은 1443년에 훈민정음을 창제하였다. "
            "훈민정음은 1446년에 반포되었다. 대구는 분지에 있다.")
    out, cut = relevant_sentences(text, keys("훈민정음은 몇 년에 반포되었나요?"), 30)
    assert not cut and "1446년" in out and "서울" not in out and "대구" not in out


def test_when_no_sentence_fits_the_best_one_is_cut_to_the_room():
    text = "Seoul is the capital and largest city of the country. Busan is a port."
    out, cut = relevant_sentences(text, keys("capital Seoul"), 20)
    assert cut and out.startswith("Seoul is") and out.endswith("…") and len(out) <= 20


def test_the_topic_in_every_sentence_counts_less_than_a_word_only_one_sentence_shares():
    # an article about the ark names it in most sentences; only the last holds the asked-for hull and its wood
    text = ("노아는 하나님의 명령에 따라 배를 만들고 홍수를 피하였다. 노아의 방주는 3층으로 만들어졌다. "
            "방주에 탔던 노아의 가족은 살아 남았다. 선체는 고페르나무로 되고 안쪽에는 역청을 칠하였다.")
    out, cut = relevant_sentences(text, keys("노아의 방주의 선체는 어떠한 나무로 만들었는가?"), 60)
    assert not cut and "고페르나무" in out


def test_a_hangul_key_is_found_inside_a_compound():
    out, _ = relevant_sentences("서울은 크다. 부산은 항구이다. 잣나무가 많다.", keys("어떤 나무인가"), 12)
    assert "잣나무" in out


def test_question_words_are_no_keys():
    assert keys("무엇인가 어떤 누구 언제 어디") == set()
