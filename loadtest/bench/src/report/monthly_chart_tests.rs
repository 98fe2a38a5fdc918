use super::*;
use crate::break_even::break_even;

/// A 30-day month: 30 x 86,400 s.
const SECONDS: f64 = 2_592_000.0;

/// `bill` at 10 rates a decade from 0.1 to 10,000 req/s.
fn line(label: &str, on_lmi: bool, bill: impl Fn(f64) -> f64) -> BillLine {
    let points = (0..=50)
        .map(|i| 10f64.powf(-1.0 + f64::from(i) / 10.0))
        .map(|rate| (rate, bill(rate)))
        .collect();
    BillLine {
        label: label.into(),
        on_lmi,
        family: 0,
        points,
    }
}

/// The (x, y) pixels of each polyline.
fn polylines(svg: &str) -> Vec<Vec<(f64, f64)>> {
    svg.split("points=\"")
        .skip(1)
        .map(|rest| {
            let points = rest.split('"').next().unwrap();
            points
                .split(' ')
                .map(|p| p.split_once(',').unwrap())
                .map(|(x, y)| (x.parse().unwrap(), y.parse().unwrap()))
                .collect()
        })
        .collect()
}

#[test]
fn where_two_bills_cross_is_a_dot_at_its_log_position_labelled_with_its_rate() {
    // GIVEN a: a $100 fleet a month plus $1 per million requests; b: $5
    // per million, which cross at 100 / 10.368 = 9.645 req/s
    let a = |r: f64| 100.0 + r * SECONDS * 1e-6;
    let b = |r: f64| r * SECONDS * 5e-6;
    let (bill_a, bill_b) = (|r| Ok::<f64, ()>(a(r)), |r| Ok::<f64, ()>(b(r)));
    let found = break_even(("a", &bill_a), ("b", &bill_b), &[]).unwrap();
    let Crossing::At { rates, .. } = found.crossing else {
        panic!("{found:?}");
    };
    let chart = BillChart {
        subtitle: "at s, the healthy load".into(),
        lines: vec![line("a", true, a), line("b", false, b)],
        crossings: vec![CrossingMark {
            a: "a".into(),
            b: "b".into(),
            rate: rates[0],
        }],
    };
    // WHEN drawn
    let svg = chart.svg("a against b");
    // THEN the x axis spans the decades 0.1 to 10,000 (five), and the dot
    // sits log10(9.645 / 0.1) / 5 of the way along it
    let along = (100.0 / 10.368 / 0.1f64).log10() / 5.0;
    let expected = LEFT + along * (WIDTH - LEFT - RIGHT);
    assert!(
        svg.contains(&format!("<circle cx=\"{expected:.1}\"")),
        "{expected}: {svg}"
    );
    assert!(svg.contains(">9.65 req/s</text>"), "{svg}");
    // AND its y is where both bills are $100 + 2.592 x 9.645 = $125, on a
    // y axis of the decades $1 (b at 0.1 req/s: $1.30) to $1,000,000 (b at
    // 10,000 req/s: $129,600), six
    let up = 125f64.log10() / 6.0;
    let expected = TOP + PLOT_HEIGHT - up * PLOT_HEIGHT;
    let cy: f64 = svg
        .split("cy=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((cy - expected).abs() < 0.5, "{cy} against {expected}");
    assert!(svg.contains("a and b cross at 9.65 req/s"), "{svg}");
    // AND a is dashed (on LMI), b solid, both in the legend
    assert_eq!(svg.matches("stroke-dasharray").count(), 2, "{svg}");
    assert!(svg.contains(">b</text>"));
    // AND the subtitle is under the title, above the key and the plot
    let at = |text: &str| svg.find(text).unwrap();
    assert!(at(">a against b</text>") < at(">at s, the healthy load</text>"));
    assert!(at(">at s, the healthy load</text>") < at(">solid: on-demand"));
    assert!(svg.contains("y=\"35\" font-size=\"12\">at s, the healthy load</text>"));
}

#[test]
fn bills_that_grow_with_the_rate_are_drawn_rising_left_to_right() {
    // GIVEN two bills that grow with the rate, one with a fixed part
    let chart = BillChart {
        lines: vec![
            line("fleet", true, |r| 300.0 + r * 2.0),
            line("per request", false, |r| r * 7.0),
        ],
        ..BillChart::default()
    };
    // WHEN drawn
    let lines = polylines(&chart.svg("t"));
    // THEN each is drawn over the whole focus, x ascending, y rising
    // (pixels going up the page) or flat
    assert_eq!(lines.len(), 2);
    for points in lines {
        assert_eq!(points.len(), 51);
        assert_eq!(points[0].0, LEFT);
        assert_eq!(points[50].0, WIDTH - RIGHT);
        for pair in points.windows(2) {
            assert!(pair[1].0 > pair[0].0, "{pair:?}");
            assert!(pair[1].1 <= pair[0].1, "{pair:?}");
        }
    }
}

#[test]
fn no_line_draws_nothing_and_one_line_draws_without_a_crossing() {
    // GIVEN no line, then one whose crossing names a line not drawn
    assert_eq!(BillChart::default().svg("empty"), "");
    let one = BillChart {
        lines: vec![line("alone", false, |r| r)],
        crossings: vec![CrossingMark {
            a: "alone".into(),
            b: "gone".into(),
            rate: 3.0,
        }],
        ..BillChart::default()
    };
    // THEN one polyline, no dot, ticks at $0.1 to $10,000
    let svg = one.svg("one");
    assert_eq!(polylines(&svg).len(), 1);
    assert!(!svg.contains("<circle"));
    assert!(
        svg.contains(">$0.1</text>") && svg.contains(">$10,000</text>"),
        "{svg}"
    );
}

#[test]
fn a_label_that_would_cover_another_moves_and_one_with_no_room_is_left_out() {
    // GIVEN a label placed above right of a dot
    let first = Label::free((400.0, 200.0), "9.65 req/s", &[], &[]).unwrap();
    assert_eq!((first.x, first.y, first.anchor), (407.0, 192.0, "start"));
    // WHEN a second dot lands on the same spot
    let mut taken = vec![first];
    let second = Label::free((400.0, 200.0), "9.70 req/s", &taken, &[]).unwrap();
    // THEN its label goes below it
    assert_eq!((second.x, second.y), (407.0, 216.0));
    // AND once every place around the spot is taken, a label is left out
    taken.push(second);
    while let Some(next) = Label::free((400.0, 200.0), "9.70 req/s", &taken, &[]) {
        taken.push(next);
        assert!(taken.len() <= 6, "six places around a dot");
    }
    assert_eq!(taken.len(), 6);
}

#[test]
fn the_same_crossing_of_two_pairs_is_two_dots_and_one_label() {
    // GIVEN two pairs whose bills are alike and cross at 10 req/s
    let mut lines = Vec::new();
    let mut crossings = Vec::new();
    for scenario in ["s1", "s2"] {
        let (a, b) = (format!("{scenario} / a"), format!("{scenario} / b"));
        lines.push(line(&a, true, |r| 100.0 + r * 10.0));
        lines.push(line(&b, false, |r| r * 20.0));
        crossings.push(CrossingMark { a, b, rate: 10.0 });
    }
    // WHEN drawn
    let chart = BillChart {
        lines,
        crossings,
        ..BillChart::default()
    };
    let svg = chart.svg("t");
    // THEN a dot for each, naming its pair, and the rate said once
    assert_eq!(svg.matches("<circle").count(), 2);
    assert!(
        svg.contains("s2 / a and s2 / b cross at 10.0 req/s"),
        "{svg}"
    );
    assert_eq!(svg.matches(">10.0 req/s</text>").count(), 1, "{svg}");
}

#[test]
fn a_label_goes_where_it_is_nearer_its_own_dot_than_another() {
    // GIVEN two dots 11 px apart, one over the other (orders-baseline: two
    // architectures each crossing its LMI self near 32 req/s)
    let (lower, upper) = ((400.0, 211.0), (401.5, 200.0));
    let dots = [lower, upper];
    // WHEN the lower one's label is placed first
    let own = Label::free(lower, "32.3 req/s", &[], &dots).unwrap();
    // THEN it is not above right of it, beside the upper dot, but below
    assert_eq!((own.x, own.y, own.anchor), (407.0, 227.0, "start"));
    assert!(own.distance(lower.0, lower.1) + CLEARLY <= own.distance(upper.0, upper.1));
    // AND the upper one's goes above right of it, clear of the first
    let other = Label::free(upper, "31.6 req/s", &[own], &dots).unwrap();
    assert_eq!((other.x, other.y), (408.5, 192.0));
    // AND a dot within a few pixels is the same place: no obstacle
    let near = [(400.0, 200.0), (404.0, 201.0)];
    let label = Label::free(near[0], "1,190 req/s", &[], &near).unwrap();
    assert_eq!((label.x, label.y), (407.0, 192.0));
}

#[test]
fn rates_are_labelled_to_three_significant_figures() {
    assert_eq!(rate_label(100.0 / 10.368), "9.65");
    assert_eq!(rate_label(12.43), "12.4");
    assert_eq!(rate_label(0.051_23), "0.0512");
    assert_eq!(rate_label(1234.5), "1,230");
}

#[test]
fn an_architecture_on_lmi_wears_its_on_demand_colour_dashed() {
    // GIVEN the orders-baseline bills on-demand and on LMI (modelled)
    let results = crate::testdata::results();
    let pricing =
        crate::monthly::MonthPricing::new(&results, costmodel::PriceTable::aws_default()).unwrap();
    let both = crate::monthly::Compute::Both(costmodel::managed::FleetSettings::default());
    let bills = crate::monthly::monthly_bills_for(&results, &pricing, &[1.0, 10.0], &both).unwrap();
    // WHEN charted
    let chart = BillChart::of(&bills.scenarios[0], String::new());
    // THEN direct and queue each have a colour, shared with their LMI self,
    // named as the verdict names them
    let drawn: Vec<(&str, bool, usize)> = chart
        .lines
        .iter()
        .map(|l| (l.label.as_str(), l.on_lmi, l.family))
        .collect();
    assert_eq!(
        drawn,
        [
            ("direct Invoke", false, 0),
            ("direct Invoke on LMI (c7i.xlarge, modelled)", true, 0),
            ("SQS request/reply", false, 1),
            ("SQS request/reply on LMI (c7i.xlarge, modelled)", true, 1),
        ]
    );
    // AND every crossing names two of its lines
    assert!(!chart.crossings.is_empty());
    for mark in &chart.crossings {
        assert!(chart.line(&mark.a).is_some() && chart.line(&mark.b).is_some());
    }
}

#[test]
fn a_run_measured_on_lmi_wears_the_colour_of_its_on_demand_run_wherever_it_comes() {
    // GIVEN orders-direct measured on LMI too, run after orders-queue
    let mut results = crate::testdata::results();
    let direct = results.records[0].clone();
    results.records.push(crate::testdata::on_lmi(&direct, 60.0));
    // WHEN the report's view charts the orders question
    let view = super::super::monthly::monthly(&results).unwrap();
    let chart = &view.sections[0].chart;
    // THEN the measured LMI line is dashed in orders-direct's colour, not a
    // third one
    let family = |label: &str| chart.line(label).map(|l| (l.on_lmi, l.family));
    assert_eq!(family("direct Invoke"), Some((false, 0)));
    assert_eq!(family("SQS request/reply"), Some((false, 1)));
    assert_eq!(family("direct Invoke on LMI"), Some((true, 0)));
    assert_eq!(chart.lines.len(), 3);
}

#[test]
fn the_legend_names_the_architectures_as_the_verdict_does() {
    // GIVEN the report's view of the sample run
    let view = super::super::monthly::monthly(&crate::testdata::results()).unwrap();
    let legend = |section: usize| {
        let svg = view.sections[section].chart.svg(TITLE);
        let texts: Vec<String> = svg
            .split("font-size=\"12\">")
            .skip(1)
            .map(|rest| rest.split('<').next().unwrap().to_string())
            .collect();
        (svg, texts)
    };
    // WHEN the orders and Conduit charts are drawn
    let (orders, orders_texts) = legend(0);
    let (conduit, conduit_texts) = legend(1);
    // THEN their legends name the architectures and their compute
    for name in [
        "direct Invoke",
        "direct Invoke on LMI (c7i.xlarge, modelled)",
        "SQS request/reply",
        "SQS request/reply on LMI (c7i.xlarge, modelled)",
    ] {
        assert!(
            orders_texts.iter().any(|t| t == name),
            "{name}: {orders_texts:?}"
        );
    }
    for name in [
        "monolith",
        "monolith on LMI (c7i.xlarge, modelled)",
        "micro-invoke",
        "micro-invoke on LMI (c7i.xlarge, modelled)",
        "micro-queue",
        "micro-queue on LMI (c7i.xlarge, modelled)",
    ] {
        assert!(
            conduit_texts.iter().any(|t| t == name),
            "{name}: {conduit_texts:?}"
        );
    }
    // AND no variant's id, nor a scenario's, is a line's name
    for svg in [&orders, &conduit] {
        for id in [
            "orders-direct",
            "orders-queue",
            "conduit-monolith",
            "conduit-micro",
        ] {
            assert!(!svg.contains(id), "{id}: {svg}");
        }
        assert!(!svg.contains("<title>orders-baseline /"), "{svg}");
    }
    assert_eq!(polylines(&orders).len(), 4);
    assert_eq!(polylines(&conduit).len(), 6);
}

#[test]
fn a_variant_the_verdict_does_not_name_keeps_its_own_name() {
    assert_eq!(named("orders-direct"), "direct Invoke");
    assert_eq!(
        named("conduit-micro-queue (REST API) on LMI [memory 512]"),
        "micro-queue (REST API) on LMI [memory 512]"
    );
    assert_eq!(named("orders-directly"), "orders-directly");
    assert_eq!(named("other-variant on LMI"), "other-variant on LMI");
}
